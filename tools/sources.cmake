# The acart tool's sources, by folder, named once. tools/CMakeLists.txt builds them; the
# tests that compile a piece of the tool with flags of their own (tests/collect, tests/pmu)
# and the clang build of tests/fuzz/project take their paths from here, never spelling out
# where a file lives. docs/ARCHITECTURE.md says which folder a new file goes in.
set(ACART_TOOLS_DIR "${CMAKE_CURRENT_LIST_DIR}")

# Every folder of tools/ with headers: sources include each other's by name.
set(ACART_TOOLS_INCLUDE_DIRS)
foreach(dir IN ITEMS cli common profile analysis report export diff pt tb5 collect collect/link
        collect/setup)
  list(APPEND ACART_TOOLS_INCLUDE_DIRS "${ACART_TOOLS_DIR}/${dir}")
endforeach()

# main(): the command table.
set(ACART_TOOLS_MAIN "${ACART_TOOLS_DIR}/cli/acart.c")

# Everything but main() and the collector: the library acart_tools, which tests link too.
set(ACART_TOOLS_SOURCES)
foreach(src IN ITEMS
    cli/cli.c cli/progress.c
    common/diag.c common/file_util.c common/json_write.c common/out_file.c common/protobuf.c
    common/vtune_csv.c
    profile/collection.c profile/counts.c profile/ipr_file.c profile/module_map.c profile/profile.c
    profile/profile_open.c profile/session.c profile/task_switches.c profile/uncore_data.c
    analysis/code_names.c analysis/code_places.c analysis/metrics.c analysis/sample_stacks.c
    analysis/stack_tally.c analysis/symbols.c analysis/tally.c analysis/unwind.c
    report/branch_report.c report/counts_report.c report/ipr_report.c report/latency_report.c
    report/report.c
    export/export_chrome.c export/export_csv.c export/export_folded.c export/export_input.c
    export/export_perf.c export/export_perfetto.c export/export_pprof.c export/flame.c
    export/flamegraph.c export/import.c export/ipr_timeline.c export/pt_timeline.c
    diff/diff.c diff/diff_gate.c diff/diff_stats.c
    pt/pt_args.c pt/pt_cmd.c pt/pt_code.c pt/pt_cycles.c pt/pt_decode.c pt/pt_flow.c
    pt/pt_input.c pt/pt_packets.c pt/pt_path.c
    tb5/tb5_cmd.c tb5/tb5_read.c tb5/tb5_record.c tb5/tb5_strings.c tb5/tb5_write.c)
  list(APPEND ACART_TOOLS_SOURCES "${ACART_TOOLS_DIR}/${src}")
endforeach()

# `acart collect` and `acart fetch`: the host side of the SEP protocol.
set(ACART_TOOLS_COLLECT_SOURCES)
foreach(src IN ITEMS
    collect/collect.c collect/collect_cut.c collect/collect_options.c collect/collect_run.c
    collect/collect_session.c collect/collect_setup.c collect/collect_status.c
    collect/collect_data.c collect/collect_fetch.c collect/collect_switches.c
    collect/link/collect_link.c collect/link/collect_net.c collect/link/collect_records.c
    collect/setup/collect_ecb.c collect/setup/collect_events.c collect/setup/collect_layout.c
    collect/setup/collect_lbr.c collect/setup/collect_pt.c collect/setup/collect_sysinfo.c
    collect/setup/collect_uncore.c)
  list(APPEND ACART_TOOLS_COLLECT_SOURCES "${ACART_TOOLS_DIR}/${src}")
endforeach()

# acart_tool_sources(<variable> <name>...): the paths of the tool's sources <name>.c,
# whichever folder holds them, for a test that compiles some of them with its own flags.
function(acart_tool_sources var)
  set(paths)
  foreach(name IN LISTS ARGN)
    set(found)
    foreach(src IN LISTS ACART_TOOLS_SOURCES ACART_TOOLS_COLLECT_SOURCES ACART_TOOLS_MAIN)
      get_filename_component(base "${src}" NAME_WE)
      if(base STREQUAL name)
        set(found "${src}")
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "acart_tool_sources: tools/ has no ${name}.c")
    endif()
    list(APPEND paths "${found}")
  endforeach()
  set(${var} ${paths} PARENT_SCOPE)
endfunction()

# The libraries the host tools link (tools/, tb5/), each an imported target
# acart_host::<name>: the static archives Debian's -dev packages ship where all of them are
# there, else the shared library pkg-config names. Linked in, elfutils and the compression
# libraries it reads with are no shared objects to map at every start of acart, which was
# most of its CPU time on a small input (bench-pt-ratio's 2 KiB real trace, against a bare
# decode that loads libipt alone; docs/benchmarks.md).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# acart_host_library(NAME MODULES ARCHIVE...): ARCHIVEs (lib<ARCHIVE>.a, in link order)
# stand for pkg-config's MODULES.
function(acart_host_library name modules)
  if(TARGET acart_host::${name})
    return()
  endif()
  set(archives "")
  foreach(lib IN LISTS ARGN)
    find_library(ACART_ARCHIVE_${lib} NAMES lib${lib}.a)
    if(NOT ACART_ARCHIVE_${lib})
      set(archives "")
      break()
    endif()
    list(APPEND archives "${ACART_ARCHIVE_${lib}}")
  endforeach()
  add_library(acart_host::${name} INTERFACE IMPORTED GLOBAL)
  if(archives)
    target_link_libraries(acart_host::${name} INTERFACE ${archives} Threads::Threads)
  else()
    pkg_check_modules(ACART_HOST_${name} REQUIRED IMPORTED_TARGET GLOBAL ${modules})
    target_link_libraries(acart_host::${name} INTERFACE PkgConfig::ACART_HOST_${name})
  endif()
endfunction()

acart_host_library(zstd libzstd zstd)
acart_host_library(zlib zlib z)
# libdw reads compressed debug sections with zlib, bzip2 and xz.
acart_host_library(elfutils "libdw;libelf" dw elf bz2 z lzma)

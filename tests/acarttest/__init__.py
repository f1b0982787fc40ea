"""Helpers the Python tests (tests/*/) and the benchmarks (bench/) share, imported as a
package: `from acarttest import sep`, `from acarttest.board import Board`.

  board            boots the qemu-pc board (scripts/run-board), watches its console
  rtos_board       the rtos-pc board's own accounting and the image's symbols
  sep              a small SEP host, written from docs/sep-protocol.md
  simboard         acart_simboard (tests/sim/simboard) in the background, collect from it
  tooltest         the tool tests' runner, binutils readers, report parsing, Chromium
  callstack        the test workload's addresses, `report --by caller` expected and read
  check_vtune_csv  VTune's rules for external CSV data (also a command)
  ptcase           Intel PT test cases from pttc's annotated assembly (tests/pt/traces)

The tests' folder (tests/) must be on the import path: ctest runs every Python test with
PYTHONPATH set to it (acart_python_test in tests/CMakeLists.txt), the Makefile's bench
and soak targets likewise. By hand, from the top of the tree:

    PYTHONPATH=tests python3 tests/qemu/test_boot.py --image IMAGE
    PYTHONPATH=tests python3 bench/soak.py --image IMAGE --minutes 5
"""

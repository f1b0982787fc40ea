# The simulated-CPU tests as 32-bit Linux programs (tests/sim, tests/pmu): Debian's
# i686-linux-gnu-gcc with its hosted libc (libc6-dev-i386-cross), so that the code under
# test (arch/x86/pmu, runtime/) is its i686 build, running here in 32-bit protected mode
# (compatibility mode under the 64-bit kernel) where toolchain-i686.cmake's freestanding
# build cannot run. The top CMakeLists.txt configures it with ACART_SIM_TESTS_ONLY=ON.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER i686-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER i686-linux-gnu-gcc)
set(CMAKE_AR i686-linux-gnu-ar)
set(CMAKE_RANLIB i686-linux-gnu-ranlib)
set(CMAKE_C_FLAGS_INIT "-march=i686")
# The cross libraries (libc, libasan, libubsan) live in the cross sysroot, not where the
# host's loader looks: the programs name that loader and that folder themselves, so they
# run without the i386 multiarch libc and without LD_LIBRARY_PATH.
set(ACART_I686_SYSROOT_LIB /usr/i686-linux-gnu/lib)
set(CMAKE_EXE_LINKER_FLAGS_INIT
  "-Wl,-rpath,${ACART_I686_SYSROOT_LIB} -Wl,--dynamic-linker=${ACART_I686_SYSROOT_LIB}/ld-linux.so.2")
set(CMAKE_FIND_ROOT_PATH /usr/i686-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

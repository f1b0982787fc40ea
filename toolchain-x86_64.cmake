# Freestanding x86-64 code for the 64-bit board images and libacart.a, built with Debian's
# x86_64-linux-gnu compiler (the host's gcc package). No host libc, no PIE: the board links
# the x86_64 picolibc from .deps/. Images are linked below 2 GiB (identity-mapped low
# memory), so the small code model applies; -mno-red-zone because interrupts arrive on the
# interrupted stack in ring 0 and would overwrite a leaf function's red zone.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER x86_64-linux-gnu-gcc)
set(CMAKE_AR x86_64-linux-gnu-ar)
set(CMAKE_RANLIB x86_64-linux-gnu-ranlib)
set(CMAKE_OBJCOPY x86_64-linux-gnu-objcopy)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-m64 -march=x86-64 -mcmodel=small -ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-asynchronous-unwind-tables -mno-red-zone")
set(CMAKE_ASM_FLAGS_INIT "-m64 -fno-pic -fno-pie")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

/* The code mode this file is compiled for, as the SEP wire format names it: 64-bit code in
 * long mode (x86_64 build) or 32-bit protected mode (i686 build). acart runs in the
 * firmware's address space, so the samples it takes and the modules it reports are of the
 * firmware's own mode; a 64-bit image's compatibility-mode code is not supported. */
#ifndef ACART_CPU_CODE_MODE_H
#define ACART_CPU_CODE_MODE_H

#ifdef __x86_64__
#define CPU_LONG_MODE  1
#define CODE_MODE_NAME "x86_64"
#else
#define CPU_LONG_MODE  0
#define CODE_MODE_NAME "i686"
#endif

#endif

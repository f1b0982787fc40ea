/* Compiled with the board's i686 freestanding compiler by the wire_i686_static_asserts
 * test: including the header evaluates every size and offset assertion under the i686
 * ABI, where 64-bit members would otherwise be 4-byte aligned. The extra assertions
 * check that the alignment fix itself holds. */
#include "acart_wire.h"
#include "ecb.h"
#include "msr_policy.h"

_Static_assert(sizeof(void *) == 4, "this file must be compiled for i686");
_Static_assert(_Alignof(sep_u64_t) == 8, "wire 64-bit integers are 8-byte aligned");
_Static_assert(_Alignof(struct sep_ctrl_header) == 8, "header alignment");

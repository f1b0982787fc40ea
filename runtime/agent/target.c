/* See target.h: aca_start() fills it, everything else reads it. */
#include "target.h"

struct target target;

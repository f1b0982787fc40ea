/* The path of a block through the code (docs/pt.md, "How the host decodes it"). The flow
 * asks libipt's block decoder for blocks that run on through direct calls: a block that
 * ends at every call costs libipt a return to its caller and acart a block more, on every
 * call of the trace. Such a block is straight-line code joined by direct calls (every other
 * branch ends it, and so does a section), and its path is a function of the image alone:
 * it is read once with an instruction decoder (Zydis) and kept by the flow. */
#ifndef ACART_TOOLS_PT_PATH_H
#define ACART_TOOLS_PT_PATH_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_code.h"

/* Instructions of one region of the code run one after the other; all but a path's last
 * segment end at a direct call or where the next region begins. */
struct pt_path_segment {
    uint32_t name;  /* name id */
    uint32_t ninsn; /* instructions */
    bool call;      /* the last one is a direct call (not for a path's last segment) */
};

struct pt_path_segments {
    struct pt_path_segment *at;
    size_t num, cap;
};

/* pt_path_walk's answer where it cannot follow a block (code it cannot read or decode, or
 * a path that does not reach the block's last instruction): the flow decodes the trace
 * again with blocks that end at calls. Positive, unlike every diag code. */
#define PT_PATH_UNKNOWN 2

/* Appends block b's path to segs: 0, PT_PATH_UNKNOWN or DIAG_NOMEM. */
int pt_path_walk(const struct pt_code *c, const struct pt_block *b, struct pt_path_segments *segs);

#endif

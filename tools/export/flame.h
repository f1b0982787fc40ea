/* A flame graph: stacks of frames with sample counts, merged into a tree and drawn as a
 * self-contained SVG (no scripts, no external resources; tooltips are <title> elements). */
#ifndef ACART_TOOLS_FLAME_H
#define ACART_TOOLS_FLAME_H

#include <stdint.h>
#include <stdio.h>

enum frame_kind {
    FRAME_FUNCTION, /* an out-of-line function, or a caller from a call stack */
    FRAME_INLINED,  /* a function inlined into its parent frame */
    FRAME_LINE,     /* a source position file:line */
    FRAME_OTHER,    /* code outside the image: a module, or [unknown] */
};

struct flame_frame {
    const char *name; /* copied into the tree */
    enum frame_kind kind;
};

struct flame_node;

struct flame {
    struct flame_node *root;
    const char *unit; /* what the counts are, in tooltips; NULL: "samples" */
};

int flame_init(struct flame *f);
void flame_free(struct flame *f);

/* Adds count samples with this stack, outermost frame first. Returns 0 or -1 (no memory). */
int flame_add(struct flame *f, const struct flame_frame *stack, size_t depth, uint64_t count);

/* Samples added so far. */
uint64_t flame_total(const struct flame *f);

/* Writes the SVG; title heads the picture. Returns 0, or -1 when writing failed. */
int flame_write_svg(const struct flame *f, const char *title, const char *subtitle, FILE *out);

#endif

#include "flame.h"

#include "text_escape.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Picture geometry, in SVG user units (pixels). */
#define SVG_WIDTH      1200.0
#define SVG_MARGIN     10.0
#define SVG_TITLE_PAD  56.0
#define SVG_LEGEND_PAD 36.0
#define FRAME_HEIGHT   16.0
#define FRAME_STEP     17.0
/* Narrower frames are not drawn: nobody can point at them. */
#define MIN_FRAME_WIDTH 0.1
/* The monospace font at 12 px is about this wide per character. */
#define CHAR_WIDTH 7.3
#define TEXT_PAD   3.0

struct flame_node {
    char *name;
    enum frame_kind kind;
    uint64_t count;
    struct flame_node **children;
    size_t num_children, capacity;
};

static struct flame_node *node_new(const char *name, enum frame_kind kind)
{
    struct flame_node *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->name = strdup(name);
    if (!n->name) {
        free(n);
        return NULL;
    }
    n->kind = kind;
    return n;
}

static void node_free(struct flame_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->num_children; i++)
        node_free(n->children[i]);
    free(n->children);
    free(n->name);
    free(n);
}

int flame_init(struct flame *f)
{
    f->root = node_new("all", FRAME_OTHER);
    f->unit = NULL;
    return f->root ? 0 : -1;
}

void flame_free(struct flame *f)
{
    node_free(f->root);
    f->root = NULL;
}

static struct flame_node *child(struct flame_node *parent, const struct flame_frame *frame)
{
    for (size_t i = 0; i < parent->num_children; i++) {
        struct flame_node *c = parent->children[i];
        if (c->kind == frame->kind && strcmp(c->name, frame->name) == 0)
            return c;
    }
    if (parent->num_children == parent->capacity) {
        size_t cap = parent->capacity ? parent->capacity * 2 : 4;
        struct flame_node **grown = realloc(parent->children, cap * sizeof *grown);
        if (!grown)
            return NULL;
        parent->children = grown;
        parent->capacity = cap;
    }
    struct flame_node *c = node_new(frame->name, frame->kind);
    if (c)
        parent->children[parent->num_children++] = c;
    return c;
}

int flame_add(struct flame *f, const struct flame_frame *stack, size_t depth, uint64_t count)
{
    struct flame_node *n = f->root;
    n->count += count;
    for (size_t i = 0; i < depth; i++) {
        n = child(n, &stack[i]);
        if (!n)
            return -1;
        n->count += count;
    }
    return 0;
}

uint64_t flame_total(const struct flame *f)
{
    return f->root->count;
}

static int compare_names(const void *a, const void *b)
{
    const struct flame_node *x = *(struct flame_node *const *)a;
    const struct flame_node *y = *(struct flame_node *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (int)x->kind - (int)y->kind;
}

static size_t depth_of(struct flame_node *n)
{
    size_t deepest = 0;
    /* Siblings in name order, as flame graphs conventionally draw them. */
    if (n->num_children)
        qsort(n->children, n->num_children, sizeof *n->children, compare_names);
    for (size_t i = 0; i < n->num_children; i++) {
        size_t d = depth_of(n->children[i]);
        if (d > deepest)
            deepest = d;
    }
    return deepest + 1;
}

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void frame_color(const struct flame_node *n, int rgb[3])
{
    uint32_t h = hash_name(n->name);
    unsigned a = h & 0xFF, b = (h >> 8) & 0xFF, c = (h >> 16) & 0xFF;
    switch (n->kind) {
    case FRAME_FUNCTION: /* warm: red to orange */
        rgb[0] = 205 + (int)(a % 50), rgb[1] = (int)(b % 180), rgb[2] = (int)(c % 55);
        break;
    case FRAME_INLINED: /* yellow */
        rgb[0] = 215 + (int)(a % 40), rgb[1] = 190 + (int)(b % 50), rgb[2] = 40 + (int)(c % 60);
        break;
    case FRAME_LINE: /* aqua */
        rgb[0] = 60 + (int)(a % 60), rgb[1] = 185 + (int)(b % 50), rgb[2] = 170 + (int)(c % 50);
        break;
    default: /* grey */
        rgb[0] = rgb[1] = rgb[2] = 170 + (int)(a % 40);
        break;
    }
}

/* What a frame shows: source positions by base name, the full path is in the tooltip. */
static const char *short_name(const struct flame_node *n)
{
    if (n->kind != FRAME_LINE)
        return n->name;
    const char *slash = strrchr(n->name, '/');
    return slash ? slash + 1 : n->name;
}

struct layout {
    FILE *out;
    double scale; /* pixels per sample */
    double bottom;
    uint64_t total;
    const char *unit;
};

static void write_frame(const struct layout *l, const struct flame_node *n, double x, size_t depth)
{
    double w = (double)n->count * l->scale;
    if (w < MIN_FRAME_WIDTH)
        return;
    double y = l->bottom - (double)(depth + 1) * FRAME_STEP;
    int rgb[3];
    frame_color(n, rgb);
    double percent = 100.0 * (double)n->count / (double)(l->total ? l->total : 1);
    fputs("<g><title>", l->out);
    text_fput_xml(n->name, SIZE_MAX, l->out);
    fprintf(l->out, " (%" PRIu64 " %s, %.2f%%)</title>", n->count, l->unit, percent);
    fprintf(l->out,
            "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\" "
            "fill=\"rgb(%d,%d,%d)\"/>",
            x, y, w, FRAME_HEIGHT, rgb[0], rgb[1], rgb[2]);
    const char *label = short_name(n);
    size_t fit = (size_t)((w - 2 * TEXT_PAD) / CHAR_WIDTH);
    if (fit >= 3) {
        size_t len = text_utf8_chars(label);
        fprintf(l->out, "<text x=\"%.2f\" y=\"%.1f\">", x + TEXT_PAD, y + FRAME_HEIGHT - 4.0);
        if (len <= fit) {
            text_fput_xml(label, len, l->out);
        } else {
            text_fput_xml(label, fit - 2, l->out);
            fputs("..", l->out);
        }
        fputs("</text>", l->out);
    }
    fputs("</g>\n", l->out);
    for (size_t i = 0; i < n->num_children; i++) {
        write_frame(l, n->children[i], x, depth + 1);
        x += (double)n->children[i]->count * l->scale;
    }
}

static void write_legend(FILE *out, double y)
{
    static const struct {
        enum frame_kind kind;
        const char *what;
    } items[] = {{FRAME_FUNCTION, "function"},
                 {FRAME_INLINED, "inlined function"},
                 {FRAME_LINE, "source line"},
                 {FRAME_OTHER, "outside the image"}};
    double x = SVG_MARGIN;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        struct flame_node sample = {.name = "", .kind = items[i].kind};
        int rgb[3];
        frame_color(&sample, rgb);
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"rgb(%d,%d,%d)\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                x, y, rgb[0], rgb[1], rgb[2], x + 16, y + 10, items[i].what);
        x += 40 + CHAR_WIDTH * (double)strlen(items[i].what);
    }
}

int flame_write_svg(const struct flame *f, const char *title, const char *subtitle, FILE *out)
{
    size_t depth = depth_of(f->root);
    double height = SVG_TITLE_PAD + (double)depth * FRAME_STEP + SVG_LEGEND_PAD;
    struct layout l = {
        .out = out,
        .scale = f->root->count ? (SVG_WIDTH - 2 * SVG_MARGIN) / (double)f->root->count : 0,
        .bottom = height - SVG_LEGEND_PAD,
        .total = f->root->count,
        .unit = f->unit ? f->unit : "samples",
    };
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"12\">\n",
            SVG_WIDTH, height, SVG_WIDTH, height);
    fputs("<title>", out);
    text_fput_xml(title, SIZE_MAX, out);
    fputs("</title>\n<desc>Written by acart flamegraph. Hover over a frame for its name and "
          "samples.</desc>\n",
          out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fdfdf6\"/>\n",
            SVG_WIDTH, height);
    fprintf(out, "<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"16\">",
            SVG_WIDTH / 2);
    text_fput_xml(title, SIZE_MAX, out);
    fprintf(out, "</text>\n<text x=\"%.0f\" y=\"40\" text-anchor=\"middle\" fill=\"#555\">",
            SVG_WIDTH / 2);
    text_fput_xml(subtitle, SIZE_MAX, out);
    fputs("</text>\n", out);
    if (f->root->count)
        write_frame(&l, f->root, SVG_MARGIN, 0);
    write_legend(out, height - SVG_LEGEND_PAD + 12);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}

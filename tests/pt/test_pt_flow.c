/* pt_flow on its own, fed blocks by hand on a code of three regions: what the PT traces of
 * pt_traces cannot reach.
 * - A flow that follows another's span on its own clock (the count of cycles) takes every
 *   instruction the other adds after it took part of the span, also those of a function
 *   that has an entry in the part already taken.
 * - A block that starts where a block seen before started but ends elsewhere is named
 *   afresh, so one that runs on into the next region is noted (the image must be cut).
 * - A recursive function's inclusive instructions count its outermost call once.
 * Usage: test_pt_flow */
#include <stdio.h>
#include <string.h>

#include "acart_check.h"
#include "pt_flow.h"

enum { NAME_UNKNOWN, NAME_A, NAME_B, NUM_NAMES };

/* Region 1 is A's [0x1000, 0x1010), region 2 B's [0x1010, 0x1020). */
static uint64_t bounds[] = {0x1000, 0x1010, 0x1020};
static uint32_t region_names[] = {NAME_UNKNOWN, NAME_A, NAME_B, NAME_UNKNOWN};
static char *names[] = {"[unknown]", "A", "B"};

static void code_init(struct pt_code *c)
{
    memset(c, 0, sizeof *c);
    c->names = names;
    c->num_names = NUM_NAMES;
    c->bounds = bounds;
    c->num_bounds = sizeof bounds / sizeof bounds[0];
    c->region_names = region_names;
}

static struct pt_block block(uint64_t ip, uint64_t end_ip, uint16_t ninsn,
                             enum pt_insn_class iclass)
{
    struct pt_block b;
    memset(&b, 0, sizeof b);
    b.ip = ip;
    b.end_ip = end_ip;
    b.ninsn = ninsn;
    b.iclass = iclass;
    return b;
}

static void feed(const struct pt_sink *sink, uint64_t ip, uint64_t end_ip, uint16_t ninsn,
                 enum pt_insn_class iclass, uint64_t tsc)
{
    struct pt_block b = block(ip, end_ip, ninsn, iclass);
    CHECK_EQ(sink->block(sink->ctx, &b, tsc), 0);
}

/* f runs A (2), B (3), then A (4) on a clock that does not move; the follower's clock moves
 * after B (10 ticks) and after the second A (20 ticks). The first 10 are shared 2:3, the
 * next 20 all go to A's last 4 instructions, though A's first entry was taken already. */
static void test_follower_takes_what_came_after(void)
{
    struct pt_code c;
    code_init(&c);
    struct pt_flow f, cf;
    CHECK_EQ(pt_flow_init(&f, &c, 0, 1), 0);
    CHECK_EQ(pt_flow_init(&cf, &c, 0, 1), 0);
    f.closed.drop = cf.closed.drop = true;
    f.cycles_elsewhere = true;
    cf.time_only = cf.cycles_elsewhere = true;
    pt_flow_time_to(&cf, 100);
    pt_flow_follow_span(&cf, &f);
    struct pt_sink sink;
    pt_flow_sink(&f, &sink);
    feed(&sink, 0x1000, 0x1002, 2, ptic_other, 5);
    feed(&sink, 0x1010, 0x1014, 3, ptic_other, 5);
    pt_flow_time_to(&cf, 110);
    feed(&sink, 0x1004, 0x1008, 4, ptic_other, 5);
    pt_flow_time_to(&cf, 130);
    pt_flow_follow_span(&cf, NULL);
    CHECK_MSG(cf.functions[NAME_A].self_ticks == 24.0, "A: %g ticks, want 4 + 20",
              cf.functions[NAME_A].self_ticks);
    CHECK_MSG(cf.functions[NAME_B].self_ticks == 6.0, "B: %g ticks, want 6",
              cf.functions[NAME_B].self_ticks);
    CHECK_EQ(f.functions[NAME_A].self_insns, 6);
    CHECK_EQ(f.functions[NAME_B].self_insns, 3);
    pt_flow_free(&cf);
    pt_flow_free(&f);
}

/* The same first address, once ending in A and once in B: the second is noted as running
 * on from region 1 into region 2. */
static void test_block_running_on_is_noted(void)
{
    struct pt_code c;
    code_init(&c);
    struct pt_flow f;
    CHECK_EQ(pt_flow_init(&f, &c, 0, 1), 0);
    struct pt_sink sink;
    pt_flow_sink(&f, &sink);
    feed(&sink, 0x1000, 0x1008, 4, ptic_other, 1);
    CHECK_EQ(f.num_crossed, 0);
    feed(&sink, 0x1000, 0x1012, 6, ptic_other, 1);
    CHECK_EQ(f.num_crossed, 2);
    CHECK(f.num_crossed == 2 && f.crossed[0] == 1 && f.crossed[1] == 2);
    pt_flow_free(&f);
}

/* A calls itself three times (four calls deep), each call 2 instructions before the next
 * call and 1 after its return, the innermost 1: 9 instructions in all, and inclusive of
 * the outermost call the same 9, not the sum of every call's. */
static void test_recursion_counted_once(void)
{
    struct pt_code c;
    code_init(&c);
    struct pt_flow f;
    CHECK_EQ(pt_flow_init(&f, &c, 0, 1), 0);
    f.closed.drop = true;
    struct pt_sink sink;
    pt_flow_sink(&f, &sink);
    for (int i = 0; i < 3; i++)
        feed(&sink, 0x1000, 0x1004, 2, ptic_call, 1);
    /* The innermost returns at once, then the two outer ones. */
    feed(&sink, 0x1000, 0x1000, 1, ptic_return, 1);
    feed(&sink, 0x1008, 0x1008, 1, ptic_return, 1);
    feed(&sink, 0x1008, 0x1008, 1, ptic_return, 1);
    pt_flow_finish(&f);
    CHECK_EQ(f.functions[NAME_A].calls, 4);
    CHECK_EQ(f.functions[NAME_A].self_insns, 9);
    CHECK_EQ(f.functions[NAME_A].incl_insns, 9);
    pt_flow_free(&f);
}

int main(void)
{
    test_follower_takes_what_came_after();
    test_block_running_on_is_noted();
    test_recursion_counted_once();
    return check_report("test_pt_flow");
}

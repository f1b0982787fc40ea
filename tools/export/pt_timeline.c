/* Intel PT calls as trace-event JSON: one thread per CPU, calls nested as the call tree. */
#include "pt_timeline.h"

#include <inttypes.h>

#include "json_write.h"

static const char *const end_names[] = {
    [PT_END_OPEN] = "running at end", [PT_END_RETURN] = "return",        [PT_END_GAP] = "gap",
    [PT_END_OVERFLOW] = "overflow",   [PT_END_DISABLED] = "tracing off",
};

static double ts_us(const struct pt_timeline *t, uint64_t tsc)
{
    return pt_input_us(t->in, (double)(tsc < t->base_tsc ? 0 : tsc - t->base_tsc));
}

static void begin_event(struct pt_timeline *t)
{
    fputs(t->first ? "\n" : ",\n", t->out);
    t->first = false;
}

static void write_gap(struct pt_timeline *t, const struct pt_flow *f, size_t g)
{
    char what[512];
    pt_gap_describe(&f->gaps[g], what, sizeof what);
    begin_event(t);
    fprintf(t->out,
            "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"gap\",\"cat\":\"gap\",\"pid\":%d,"
            "\"tid\":%" PRIu32 ",\"ts\":",
            t->pid, f->cpu);
    if (t->by_insns)
        fprintf(t->out, "%" PRIu64, f->gap_insns[g]);
    else
        fprintf(t->out, "%.3f", ts_us(t, f->gaps[g].tsc));
    fputs(",\"args\":{\"what\":", t->out);
    json_put_string(what, t->out);
    fputs("}}", t->out);
}

static void write_call(struct pt_timeline *t, const struct pt_flow *f, const struct pt_call *call)
{
    begin_event(t);
    fputs("{\"ph\":\"X\",\"name\":", t->out);
    json_put_string(pt_code_name(&t->in->code, call->name), t->out);
    fprintf(t->out, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%" PRIu32 ",",
            call->interrupt ? "interrupt" : "call", t->pid, f->cpu);
    if (t->by_insns)
        fprintf(t->out, "\"ts\":%" PRIu64 ",\"dur\":%" PRIu64, call->first_insn, call->insns);
    else
        fprintf(t->out, "\"ts\":%.3f,\"dur\":%.3f", ts_us(t, call->start_tsc),
                pt_input_us(t->in, (double)(call->end_tsc - call->start_tsc)));
    fprintf(t->out,
            ",\"args\":{\"insns\":%" PRIu64 ",\"self_insns\":%" PRIu64 ",\"depth\":%" PRIu32
            ",\"end\":\"%s\"}}",
            call->insns, call->self_insns, call->depth, end_names[call->end]);
}

void pt_timeline_write_cpu(struct pt_timeline *t, const struct pt_flow *f)
{
    begin_event(t);
    fprintf(t->out,
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%" PRIu32
            ",\"args\":{\"name\":\"cpu %" PRIu32 "\"}},\n"
            "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%" PRIu32
            ",\"args\":{\"sort_index\":%" PRIu32 "}}",
            t->pid, f->cpu, f->cpu, t->pid, f->cpu, f->cpu);
    size_t g = 0;
    for (size_t i = 0; i <= f->num_calls; i++) {
        /* Gaps come where they happened: before the first call after them. */
        uint64_t at = i < f->num_calls ? f->calls[i].first_insn : UINT64_MAX;
        for (; g < f->num_gaps && f->gap_insns[g] <= at; g++)
            write_gap(t, f, g);
        if (i < f->num_calls)
            write_call(t, f, &f->calls[i]);
    }
}

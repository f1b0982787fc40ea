/* Prints every event of the generated perfmon tables as test_perfmon_tables.py reads it,
 * each found again by perfmon_find under a lower-case spelling of its name, so the check
 * covers the lookup and the encoding functions as well as the data. */
#include "perfmon.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int bad = 0;
    for (unsigned i = 0; i < perfmon_num_models; i++) {
        const struct perfmon_model *m = &perfmon_models[i];
        for (unsigned j = 0; j < m->num_cpu_models; j++)
            if (perfmon_model_for(6, m->cpu_models[j]) != m) {
                fprintf(stderr, "model 6-%02X does not find %s\n", m->cpu_models[j], m->code);
                bad = 1;
            }
        printf("model %s %s %s", m->code, m->uarch, m->version);
        for (unsigned j = 0; j < m->num_cpu_models; j++)
            printf(" %02X", m->cpu_models[j]);
        printf("\n");
        for (unsigned k = 0; k < m->num_events; k++) {
            char lower[256];
            const char *name = perfmon_name(m, &m->events[k]);
            size_t n = strlen(name);
            if (n >= sizeof lower)
                return 2;
            for (size_t c = 0; c <= n; c++)
                lower[c] = (char)tolower((unsigned char)name[c]);
            const struct perfmon_event *e = perfmon_find(m, lower);
            if (e != &m->events[k]) {
                fprintf(stderr, "%s: perfmon_find(%s) finds %s\n", m->code, lower,
                        e ? perfmon_name(m, e) : "nothing");
                bad = 1;
                continue;
            }
            const struct perfmon_extra *x = perfmon_extra(m, e);
            printf("%s %s evtsel=%08x counters=%02x fixed=%d pebs=%d pebs_counters=%02x "
                   "sa=%u msr=%x value=%llx alt=%02x/%02x\n",
                   m->code, name, perfmon_evtsel(e), e->counters,
                   e->fixed == PERFMON_NO_FIXED ? -1 : e->fixed, !!(e->flags & PERFMON_PEBS),
                   e->pebs_counters, perfmon_sample_after(m, e), x ? x->msr : 0,
                   x ? (unsigned long long)x->value : 0ull, x ? x->alt_code : 0,
                   x ? x->alt_umask : 0);
        }
    }
    if (perfmon_model_for(6, 0x06) || perfmon_model_for(15, 0x5e) ||
        perfmon_find(&perfmon_models[0], "NO_SUCH.EVENT") || perfmon_find(&perfmon_models[0], "")) {
        fprintf(stderr, "an unknown model or name was found\n");
        bad = 1;
    }
    return bad;
}

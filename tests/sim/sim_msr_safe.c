/* msr_read_safe() and msr_write_safe() (msr_safe.h) on the current simulated CPU of the
 * board (sampler_shim.h). The simulated CPU records an access to an MSR it lacks as a
 * fault, where hardware raises #GP and acart's fixup makes the access fail: here such a
 * fault is cleared and the access fails. A fault outside these calls stays for the test
 * to report. */
#include <stdint.h>

#include "msr.h"
#include "msr_safe.h"
#include "sampler_shim.h"

static int faulted(unsigned before)
{
    const struct sim_instance *s = shim_sim(shim_current_cpu());
    if (s->faults() == before)
        return 0;
    s->clear_faults();
    return 1;
}

int msr_read_safe(uint32_t msr, uint64_t *value)
{
    unsigned before = shim_sim(shim_current_cpu())->faults();
    *value = msr_read(msr);
    return faulted(before) ? -1 : 0;
}

int msr_write_safe(uint32_t msr, uint64_t value)
{
    unsigned before = shim_sim(shim_current_cpu())->faults();
    msr_write(msr, value);
    return faulted(before) ? -1 : 0;
}

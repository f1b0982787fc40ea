/* libFuzzer target: the runtime's ECB decoder (runtime/commands/ecb.c) on an EM_CONFIG_NEXT payload
 * as a hostile host sends it, then the sampling plan and the MSR allowlist, as the agent's
 * EM_CONFIG_NEXT handler runs them. Every decoded entry must lie inside the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ecb.h"
#include "msr_policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ecb ecb;
    static struct ecb_plan plan;
    if (ecb_decode(data, size, &ecb) != ECB_OK)
        return 0;
    if (ecb.entry_count > ECB_MAX_ENTRIES)
        abort();
    for (uint32_t i = 0; i < ecb.entry_count; i++)
        (void)msr_policy_check(ecb.entries[i].reg_id, 1);
    if (ecb_plan_sampling(&ecb, &plan) == ECB_OK) {
        if (plan.num_counters > ECB_MAX_COUNTERS)
            abort();
        for (uint32_t i = 0; i < plan.num_counters; i++)
            if (plan.counters[i].entry >= ecb.entry_count)
                abort();
    }
    return 0;
}

/* READ_MSR and WRITE_MSR: host access to MSRs on every CPU, through the allowlist; no write
 * to the core PMU while an IPROBE program owns the counters. */
#include "target.h"
#include "acart_wire.h"
#include "sampler.h"
#include "commands.h"
#include "log.h"
#include "msr_policy.h"
#include "pmu_owner.h"

#include "acart_platform.h"
#include "msr_safe.h"

#include <string.h>

struct msr_op {
    uint32_t msr;
    uint64_t value;
    uint64_t read[ACA_MAX_CPUS];
    volatile uint32_t failed;
};

static struct msr_op op;

static void read_on_this_cpu(void *arg)
{
    (void)arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu < target.num_cpus && msr_read_safe(op.msr, &op.read[cpu]) != 0)
        __atomic_fetch_add(&op.failed, 1, __ATOMIC_RELAXED);
}

static void write_on_this_cpu(void *arg)
{
    (void)arg;
    if (aca_plat_cpu_index() < target.num_cpus && msr_write_safe(op.msr, op.value) != 0)
        __atomic_fetch_add(&op.failed, 1, __ATOMIC_RELAXED);
}

int32_t cmd_read_msr(struct cmd_request *req)
{
    memcpy(&op.msr, req->in, 4);
    int err = msr_policy_check(op.msr, 0);
    if (err) {
        agent_log("acart: READ_MSR 0x%x refused: %s", (unsigned)op.msr, msr_policy_strerror(err));
        return SEP_STATUS_MSR_ACCESS_ERROR;
    }
    if (req->out_cap < target.num_cpus * sizeof(uint64_t))
        return SEP_STATUS_BUFFER_TOO_SMALL;
    op.failed = 0;
    aca_plat_call_on_all_cpus(read_on_this_cpu, 0);
    if (op.failed)
        return SEP_STATUS_MSR_ACCESS_ERROR; /* allowed, but this CPU does not have it */
    return cmd_reply(req, op.read, target.num_cpus * (uint32_t)sizeof(uint64_t));
}

int32_t cmd_write_msr(struct cmd_request *req)
{
    struct sep_event_reg reg;
    memcpy(&reg, req->in, sizeof(reg));
    int err = msr_policy_check(reg.event_reg_id.reg_id, 1);
    if (err) {
        agent_log("acart: WRITE_MSR 0x%x refused: %s", (unsigned)reg.event_reg_id.reg_id,
                  msr_policy_strerror(err));
        return SEP_STATUS_MSR_ACCESS_ERROR;
    }
    if (sampler_is_running())
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    /* A core-PMU register is written as the counters' owner: a session that never sent
     * INIT_PMU holds them just for this write, so an IPROBE program that owns them refuses
     * it, and one that asks for them meanwhile waits its turn (IPR__HOSTSESSION). */
    int claimed = 0;
    if (msr_policy_core_pmu(reg.event_reg_id.reg_id) && pmu_owner_current() != PMU_OWNER_HOST) {
        if (pmu_owner_claim(PMU_OWNER_HOST) != ACA_OK) {
            agent_log("acart: WRITE_MSR 0x%x (%s) refused: a program on the target owns the "
                      "counters through IPROBE (IprAllocate) until it calls IprDeallocate",
                      (unsigned)reg.event_reg_id.reg_id, msr_policy_name(reg.event_reg_id.reg_id));
            return SEP_STATUS_PMU_IN_USE;
        }
        claimed = 1;
    }
    op.msr = reg.event_reg_id.reg_id;
    op.value = reg.reg_value;
    op.failed = 0;
    aca_plat_call_on_all_cpus(write_on_this_cpu, 0);
    if (claimed)
        pmu_owner_release(PMU_OWNER_HOST);
    return op.failed ? SEP_STATUS_MSR_ACCESS_ERROR : SEP_STATUS_SUCCESS;
}

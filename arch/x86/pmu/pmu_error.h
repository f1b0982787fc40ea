/* The PMU layer's errors (pmu.c, pebs.c, lbr.c): negative codes, as libipt keeps them;
 * pmu_strerror (pmu.h) gives their text. */
#ifndef ACART_PMU_ERROR_H
#define ACART_PMU_ERROR_H

enum pmu_error {
    PMU_OK = 0,
    PMU_ERR_NO_PMU = -1,          /* no architectural perfmon v2+: sample on a timer instead */
    PMU_ERR_INVALID = -2,         /* malformed argument: NULL, unknown kind, counter twice */
    PMU_ERR_NO_COUNTER = -3,      /* a counter this CPU does not have */
    PMU_ERR_RESERVED = -4,        /* a control value sets bits this CPU reserves */
    PMU_ERR_PERIOD = -5,          /* sample-after value out of range for the counter */
    PMU_ERR_NO_PEBS = -6,         /* PEBS asked of a CPU, counter or CPU state without it */
    PMU_ERR_NO_LBR = -7,          /* LBR asked of a CPU without usable LBRs */
    PMU_ERR_READ_ONLY = -8,       /* a raw write to an MSR that only reads (#GP on hardware) */
    PMU_ERR_TOO_SMALL = -9,       /* caller's memory too small or misaligned */
    PMU_ERR_RECORD = -10,         /* a PEBS record is malformed */
    PMU_ERR_TXCP_SAMPLING = -11,  /* a sampling counter counts checkpointed (IN_TXCP) */
    PMU_ERR_PERIOD_ERRATUM = -12, /* a period the model counts wrongly (Broadwell BDM11/57) */
    PMU_ERR_CORE_TYPE = -13,      /* hybrid part: a counter this CPU's core type lacks */
};

#endif

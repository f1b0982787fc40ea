/* An IPROBE client written only from seed 002's text and examples, the way a user of the
 * seed writes one: int arrays for counter values (IprRead, IprReadAll, IprWrite), the
 * CPU-context loop of the seed's note on CPU context, optional arguments left NULL, and
 * the seed's bit-manipulation example. Nothing in it is acart's: it must compile against
 * acart's ipr.h unchanged and count right. test_ipr.c runs it on the simulated CPUs
 * (ipr_seed_sim). */
#include <stdio.h>

#include "ipr.h"

#include "ipr_seed_client.h"

int seed_client(IPR_EVENT event, void (*work)(void), int percpu[IPR_MAX_CPUS], int *total,
                int *written)
{
    IPR_STATUS status;
    IPR_EVENT events[1];
    IPR_FREQ freqs[1];
    IPR_CTRNUMBER cnum;
    IPR_CTRMASK ctrmask, retmask, tmpctrmask;
    int data[IPR_MAX_COUNTERS];
    int cpuctx;

    status = IprAllocate();
    if (!IPR_SUCCESS(status))
        return status;
    events[0] = event;
    freqs[0] = 0; /* count only */
    status = IprSelectEventsFromArray(IPR_ALL_CPUS, events, freqs, 1, NULL);
    if (IPR_SUCCESS(status))
        status = IprSetEvents(IPR_ALL_CPUS, NULL);
    if (IPR_SUCCESS(status))
        status = IprCounterNumber(IPR_CURRENT_CPU, event, &cnum);
    if (!IPR_SUCCESS(status))
        return status;
    ctrmask = BIprSet1(0, cnum);
    status = IprSetActiveCounters(IPR_ALL_CPUS, ctrmask, &retmask);
    if (IPR_SUCCESS(status))
        status = IprStart(IPR_ALL_CPUS, retmask);
    if (!IPR_SUCCESS(status))
        return status;

    work();

    status = IprStop(IPR_ALL_CPUS, retmask);
    if (!IPR_SUCCESS(status))
        return status;

    /* The seed's CPU-context loop: one call per CPU until the context passes the last. */
    for (cpuctx = -1,
        status = IprRead(IPR_ALL_CPUS, &cpuctx, ctrmask, data, IPR_MAX_COUNTERS, IPR_ACTION_COPY);
         cpuctx < IPR_MAX_CPUS; status = IprRead(IPR_ALL_CPUS, &cpuctx, ctrmask, data,
                                                 IPR_MAX_COUNTERS, IPR_ACTION_COPY)) {
        printf("CPU %d data %d\n", cpuctx, data[cnum]);
        percpu[cpuctx] = data[cnum];
    }

    /* No context: the CPUs' counts summed. */
    status = IprReadAll(IPR_ALL_CPUS, NULL, data, IPR_MAX_COUNTERS, IPR_ACTION_SUM);
    if (!IPR_SUCCESS(status))
        return status;
    *total = data[cnum];

    /* Write a value into the counter on CPU 0 and read it back. */
    data[cnum] = 123456;
    status = IprWrite(BIprB2M(0), NULL, ctrmask, data, IPR_MAX_COUNTERS);
    if (IPR_SUCCESS(status))
        status = IprRead(BIprB2M(0), NULL, ctrmask, data, IPR_MAX_COUNTERS, IPR_ACTION_COPY);
    if (!IPR_SUCCESS(status))
        return status;
    *written = data[cnum];

    /* The seed's example: the counter numbers of all the counters in the mask. */
    printf("Active counters are: ");
    tmpctrmask = ctrmask;
    while (tmpctrmask) {
        printf("%d ", BIprWhich(tmpctrmask));
        tmpctrmask = BIprClr(tmpctrmask, BIprLowest(tmpctrmask));
    }
    printf("\n");

    status = IprClear(IPR_ALL_CPUS, 0);
    if (!IPR_SUCCESS(status))
        return status;
    return IprDeallocate();
}

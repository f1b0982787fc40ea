/* arch/x86/kit/kit_platform.c, the x86 kit's side of the platform seam, built for the host
 * (ACART_SIM) over a recording trap table, LAPIC and TSC: NMIs acart declines reach the
 * board's own NMI handler, exactly once, however often acart installs its handler; NMIs
 * acart claims
 * do not; a removed handler sees no more NMIs; acart's vectors refuse the exception
 * range and vectors the board owns; and the sampling timer's period converts TSC ticks
 * to LAPIC timer ticks in 32.32 fixed point, below and above 2^32. */
#include <string.h>

#include "acart.h"
#include "acart_check.h"
#include "acart_platform.h"
#include "lapic.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "tsc.h"

void kit_platform_init(void);

/* ---- The kit, as far as kit_platform.c uses it ---- */

static trap_handler_fn handlers[256];
static uint64_t lapic_hz = 100000000, tsc_rate = 2600000000ull;
static uint32_t timer_vector, timer_period, timer_stops, eois, fatal_traps;
static struct percpu this_percpu;

void trap_set_handler(uint8_t vector, trap_handler_fn fn)
{
    handlers[vector] = fn;
}

trap_handler_fn trap_get_handler(uint8_t vector)
{
    return handlers[vector];
}

void trap_fatal(struct trap_frame *frame)
{
    (void)frame;
    fatal_traps++;
}

int aca_fixup_gp(uintptr_t *ip)
{
    (void)ip;
    return 0;
}

void aca_sample_tick(const struct aca_frame *frame)
{
    (void)frame;
}

uint32_t this_cpu_index(void)
{
    return 0;
}

struct percpu *this_cpu(void)
{
    return &this_percpu;
}

uint32_t smp_num_cpus(void)
{
    return 1;
}

void smp_call_all(smp_call_fn fn, void *arg)
{
    fn(arg);
}

void lapic_write(uint32_t reg, uint32_t value)
{
    (void)value;
    if (reg == LAPIC_REG_EOI)
        eois++;
}

int lapic_x2apic_enabled(void)
{
    return 1;
}

uintptr_t lapic_mmio_base(void)
{
    return 0;
}

uint64_t lapic_timer_hz(void)
{
    return lapic_hz;
}

void lapic_timer_start_periodic(uint8_t vector, uint32_t period_ticks)
{
    timer_vector = vector;
    timer_period = period_ticks;
}

void lapic_timer_stop(void)
{
    timer_stops++;
}

uint64_t tsc_hz(void)
{
    return tsc_rate;
}

/* ---- Who saw which NMI ---- */

static unsigned board_nmis, acart_nmis, other_acart_nmis;
static int acart_claims;

static void board_nmi(struct trap_frame *t)
{
    (void)t;
    board_nmis++;
}

static int acart_nmi(const struct aca_frame *f)
{
    CHECK_EQ(f->ip, 0x1234);
    acart_nmis++;
    return acart_claims;
}

static int other_acart_nmi(const struct aca_frame *f)
{
    (void)f;
    other_acart_nmis++;
    return 0;
}

/* The NMI as trap_dispatch() delivers it. A handler chained to itself recurses until the
 * stack overflows, which AddressSanitizer reports: the test fails, as the board would. */
static void nmi(void)
{
    struct trap_frame t;
    memset(&t, 0, sizeof t);
    t.vector = TRAP_VECTOR_NMI;
    t.ip = 0x1234;
    board_nmis = acart_nmis = other_acart_nmis = 0;
    trap_handler_fn h = handlers[TRAP_VECTOR_NMI];
    CHECK(h != NULL);
    if (h)
        h(&t);
}

static void test_nmi_chain(void)
{
    trap_set_handler(TRAP_VECTOR_NMI, board_nmi);
    CHECK_EQ(aca_plat_nmi_install(acart_nmi), ACA_OK);
    CHECK(handlers[TRAP_VECTOR_NMI] != board_nmi);

    /* A PMI acart claims still reaches the board's handler: NMIs coalesce, so it may carry
     * the board's own source too (Linux's nmi_handle() runs every handler). */
    acart_claims = 1;
    nmi();
    CHECK_EQ(acart_nmis, 1);
    CHECK_EQ(board_nmis, 1);
    acart_claims = 0; /* not a PMI: the board's */
    nmi();
    CHECK_EQ(acart_nmis, 1);
    CHECK_EQ(board_nmis, 1);

    /* A second session installs again: the board's handler stays the one chained to. */
    CHECK_EQ(aca_plat_nmi_install(acart_nmi), ACA_OK);
    nmi();
    CHECK_EQ(acart_nmis, 1);
    CHECK_EQ(board_nmis, 1);

    /* Removing a handler that is not the installed one changes nothing. */
    aca_plat_nmi_remove(other_acart_nmi);
    nmi();
    CHECK_EQ(acart_nmis, 1);
    CHECK_EQ(board_nmis, 1);
    aca_plat_nmi_remove(acart_nmi);
    nmi();
    CHECK_EQ(acart_nmis, 0);
    CHECK_EQ(board_nmis, 1);

    /* Installed again after removal, another handler, still chained to the board's. */
    CHECK_EQ(aca_plat_nmi_install(other_acart_nmi), ACA_OK);
    nmi();
    CHECK_EQ(other_acart_nmis, 1);
    CHECK_EQ(board_nmis, 1);
    aca_plat_nmi_remove(other_acart_nmi);
    CHECK_EQ(fatal_traps, 0);
}

static unsigned vector_calls;
static int on_vector(const struct aca_frame *f)
{
    (void)f;
    vector_calls++;
    return 1;
}

static void test_vectors(void)
{
    CHECK_EQ(aca_plat_vector_install(0x2f, on_vector), ACA_ERR_INVALID);
    CHECK_EQ(aca_plat_vector_install(0xf0, on_vector), ACA_ERR_INVALID);
    trap_set_handler(0x40, board_nmi); /* the board owns 0x40 */
    CHECK_EQ(aca_plat_vector_install(0x40, on_vector), ACA_ERR_BUSY);
    CHECK(handlers[0x40] == board_nmi);
    aca_plat_vector_remove(0x40); /* not acart's: stays the board's */
    CHECK(handlers[0x40] == board_nmi);

    CHECK_EQ(aca_plat_vector_install(0x41, on_vector), ACA_OK);
    CHECK_EQ(aca_plat_vector_install(0x41, on_vector), ACA_OK); /* again, a new session */
    struct trap_frame t;
    memset(&t, 0, sizeof t);
    t.vector = 0x41;
    CHECK(handlers[0x41] != NULL);
    if (handlers[0x41])
        handlers[0x41](&t);
    CHECK_EQ(vector_calls, 1);
    aca_plat_vector_remove(0x41);
    CHECK(handlers[0x41] == NULL);
}

static void test_timer_period(void)
{
    /* Before kit_platform_init() knows the LAPIC rate, there is no timer to arm. */
    CHECK_EQ(aca_plat_timer_arm(2600000), ACA_ERR_STATE);
    kit_platform_init(); /* LAPIC 100 MHz, TSC 2.6 GHz: 1 LAPIC tick per 26 TSC ticks */
    CHECK_EQ(aca_plat_timer_arm(2600000), ACA_OK);
    CHECK_EQ(timer_vector, TRAP_VECTOR_TIMER);
    CHECK_EQ(timer_period, 99999); /* 2^32 / 26 truncated: a hair under 100000 */
    CHECK(handlers[TRAP_VECTOR_TIMER] != NULL);
    CHECK_EQ(aca_plat_timer_arm(10), ACA_OK);
    CHECK_EQ(timer_period, 1);                            /* never 0, which stops the timer */
    CHECK_EQ(aca_plat_timer_arm(26ull << 32), ACA_OK);    /* 43 s, above 2^32 TSC ticks */
    CHECK_EQ(timer_period, 4294967274u);                  /* 2^32 less the 16 bits of rounding */
    CHECK_EQ(aca_plat_timer_arm(26000ull << 32), ACA_OK); /* beyond the 32-bit counter */
    CHECK_EQ(timer_period, 0xffffffffu);
    unsigned before = eois;
    struct trap_frame t;
    memset(&t, 0, sizeof t);
    handlers[TRAP_VECTOR_TIMER](&t);
    CHECK_EQ(eois, before + 1);
    aca_plat_timer_disarm();
    CHECK_EQ(timer_stops, 1);
}

int main(void)
{
    test_nmi_chain();
    test_vectors();
    test_timer_period();
    return check_report("test_kit_platform");
}

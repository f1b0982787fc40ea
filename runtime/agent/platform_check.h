/* Checks of the platform seam: the few that aca_start() makes before it trusts the seam,
 * and aca_selftest(), which a port runs while it is being written. */
#ifndef ACART_PLATFORM_CHECK_H
#define ACART_PLATFORM_CHECK_H

/* The TSC rate is known and every CPU reports a distinct index below the CPU count.
 * Logs what is wrong. Net context. Returns ACA_OK or ACA_ERR_PLATFORM. */
int platform_check_basics(void);

#endif

/* The control channel (control.c): framing of requests, dispatch to the commands, and
 * responses. */
#ifndef ACART_CONTROL_H
#define ACART_CONTROL_H

void control_on_data(void);
void control_on_sent(void);
/* A response is still being sent: it goes out before any data. */
int control_response_waiting(void);

#endif

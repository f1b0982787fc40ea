/* IPROBE: the functions of ipr_file.c that the other IPROBE files call. */
#ifndef ACART_IPR_FILE_H
#define ACART_IPR_FILE_H

#include "ipr_state.h"

/* The file lock serialises everything that writes the sample file or marks
 * buffers empty from more than one context (a task, aca_ipr_poll); append needs it held. */
void ipr_file_lock(void);
int ipr_file_trylock(void); /* 1 when taken */
void ipr_file_unlock(void);
int ipr_file_is_open(void);
IPR_STATUS ipr_file_append(uint32_t type, const void *a, uint32_t a_bytes, const void *b,
                           uint32_t b_bytes);
void ipr_file_count_write(int partial); /* automatic (IPR_FULL_WRITE) buffer writes */
/* The agent's side: closed files and reads from them (net context). */
uint32_t ipr_file_list(struct acart_file_entry *entries, uint32_t max);
int ipr_file_read(uint32_t id, uint32_t offset, uint8_t *out, uint32_t length);

#endif

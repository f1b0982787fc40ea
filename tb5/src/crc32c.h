/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of the tb5 header, directory, trailer and
 * every section (crc32c.c).
 */
#ifndef TB5_CRC32C_H
#define TB5_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C (Castagnoli). Start with 0; feed the previous result to continue. */
uint32_t tb5_crc32c(uint32_t crc, const void *data, size_t len);

#endif /* TB5_CRC32C_H */

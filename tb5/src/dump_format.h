/*
 * dump_format.h - the dump written by tb5_dump and read by tb5_rewrite (the guide's
 * tbrw_reader/tbrw_writer pair; docs/tb5-format.md, "Dump files"). A dump is
 * "TB5DUMP\0", a u32 version and a u32 0, then items: u32 tag, u32 0, u64 payload
 * length, payload. Payloads are the container's records (strings as ids); STRING
 * items give the text of each id before its first use. Stream records live in
 * files of their own, named by DATA_FILE items.
 */
#ifndef TB5_DUMP_FORMAT_H
#define TB5_DUMP_FORMAT_H

#define TB5_DUMP_MAGIC     "TB5DUMP"
#define TB5_DUMP_VERSION   1
#define TB5_DUMP_HEADER    16
#define TB5_DUMP_ITEM_HEAD 16

enum tb5_dump_tag {
    TB5_DUMP_STRING = 1,  /* u64 id, then the UTF-8 bytes */
    TB5_DUMP_SECTION = 2, /* u32 TBRW_SECTION_IDENTIFIER: the section exists */
    TB5_DUMP_SYSTEM = 3,  /* the hardware tree, as in the hardware section */
    TB5_DUMP_HOST = 4,    /* the records of the sections */
    TB5_DUMP_OS = 5,
    TB5_DUMP_APPLICATION = 6,
    TB5_DUMP_VERSION_INFO = 7,
    TB5_DUMP_MODULE = 8,
    TB5_DUMP_PROCESS = 9,
    TB5_DUMP_THREAD = 10,
    TB5_DUMP_USER_GLOBAL = 11,    /* the bytes */
    TB5_DUMP_STREAM = 16,         /* u32 stream number: the stream begins */
    TB5_DUMP_STREAM_SECTION = 17, /* u32 TBRW_STREAM_SECTION_IDENTIFIER: it exists */
    TB5_DUMP_STREAM_INFO = 18,
    TB5_DUMP_EVENT = 19, /* event record followed by its detail records */
    TB5_DUMP_DESCRIPTOR = 20,
    TB5_DUMP_USER_STREAM = 21, /* the bytes */
    TB5_DUMP_DATA_FILE = 22,   /* u32 record size, u32 0, u64 records, file name */
};

#endif /* TB5_DUMP_FORMAT_H */

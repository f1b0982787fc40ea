#include "tb5_record.h"

#include <string.h>

void tb5_record_from_sample(const struct sample *s, TBRW_SampleRecordPC *r)
{
    memset(r, 0, sizeof *r);
    if (s->ip64) {
        r->iip = s->ip;
        r->ipsr = s->psr;
    } else {
        r->eip = (TBRW_U32)s->ip;
        r->eflags = (TBRW_U32)s->psr;
        r->csd.lowWord = (TBRW_U32)s->csd;
        r->csd.highWord = (TBRW_U32)(s->csd >> 32);
    }
    r->cs = s->cs;
    r->cpuNum = s->cpu & 0xFFFu;
    r->codeMode = s->mode & 3u;
    r->tid = s->tid;
    r->pidRecIndex = s->pid;
    /* Raw OS ids and no module index: binding fills in the indexes (guide 6.10). */
    r->eventIndex = s->event;
    r->tidIsRaw = 1;
    r->pidRecIndexRaw = 1;
    r->IA64PC = s->ip64;
}

void tb5_record_to_sample(const TBRW_SampleRecordPC *r, uint64_t tsc, struct sample *s)
{
    memset(s, 0, sizeof *s);
    s->ip64 = r->IA64PC;
    if (s->ip64) {
        s->ip = r->iip;
        s->psr = r->ipsr;
    } else {
        s->ip = r->eip;
        s->psr = r->eflags;
        s->csd = (uint64_t)r->csd.highWord << 32 | r->csd.lowWord;
    }
    s->tsc = tsc;
    s->cs = r->cs;
    s->cpu = r->cpuNum;
    s->mode = (uint8_t)r->codeMode;
    s->tid = r->tid;
    s->pid = r->pidRecIndex;
    s->event = (uint8_t)r->eventIndex;
}

#include "tb5_record.h"

#include <stdbool.h>
#include <string.h>

void tb5_record_from_sample(const struct sample *s, TBRW_SampleRecordPC *r)
{
    memset(r, 0, sizeof *r);
    /* The guide (6.11): 64-bit samples use iip/ipsr with IA64PC set, 32-bit samples
     * eip/eflags/csd. The wire's form does not decide: the board sends 32-bit code in the
     * iip form. */
    bool wide = s->mode == CODE_MODE_64 || s->ip > UINT32_MAX;
    if (wide) {
        r->iip = s->ip;
        r->ipsr = s->psr;
    } else {
        r->eip = (TBRW_U32)s->ip;
        r->eflags = (TBRW_U32)s->psr; /* ipsr holds EFLAGS in its low half */
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
    r->IA64PC = wide;
}

void tb5_record_to_sample(const TBRW_SampleRecordPC *r, uint64_t tsc, struct sample *s)
{
    memset(s, 0, sizeof *s);
    if (r->IA64PC) {
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

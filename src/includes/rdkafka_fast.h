/* Small C helpers for the hot paths that librdkafka's public API makes slow.
 *
 * cb_message_may_have_headers(): rd_kafka_message_headers() on a consumed record without
 * headers still allocates, parses and frees a buffer (about a fifth of the whole per-message
 * cost of Consumer.poll()). When the extension is built against the pinned librdkafka source
 * tree (setup.py defines CB_RDKAFKA_INTERNALS then, and links that very build), it reads the
 * record's raw header block instead: a record without headers has a block of one byte, the
 * zero header count. Otherwise it answers "maybe" and the public API decides.
 *
 * cb_topic_keep() / cb_topic_release(): a reference on a topic handle, so that its address
 * names that topic for as long as it is held (the topic-name cache compares message topic
 * handles by address). With the internals, librdkafka's own topic reference count (what each
 * message holds on its topic); cb_topic_keep() returns 0 without them (no reference: the cache
 * then compares names), and cb_topic_release() does nothing.
 *
 * CB_READ_AHEAD, cb_hand_out(): the consumer's read-ahead (its contract: _Custody in
 * src/custody.pyx). rd_kafka_consume_batch_queue_deferred() (librdkafka-build/patches/0002)
 * takes messages leaving the application position and the stored offset alone; cb_hand_out()
 * then does to one of them what rd_kafka_consumer_poll() does to the message it returns (the
 * position, and the stored offset with enable.auto.offset.store), or returns 0 where librdkafka's
 * queue would have dropped it (the version check of rd_kafka_q_serve_rkmessages) and for a
 * control message (its position moves here, in order). Without the internals CB_READ_AHEAD is 0.
 *
 * cb_last_stable_offset(): a partition's last stable offset as of its last fetch response, as
 * rd_kafka_get_watermark_offsets() reads its high watermark (librdkafka keeps it, for the
 * consumer lag of read_committed consumers, and exposes it only in the statistics). Without the
 * internals it is RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED.
 *
 * cb_coarse_ms(): a cheap monotonic clock in milliseconds (a few ms of resolution), for the
 * read-ahead only (windows.h and time.h come with librdkafka's internal headers).
 */
#ifndef CB_RDKAFKA_FAST_H
#define CB_RDKAFKA_FAST_H

#ifdef CB_RDKAFKA_INTERNALS
#include <stddef.h>
#include "rdkafka_int.h"
#include "rdkafka_msg.h"
#include "rdkafka_offset.h"

/* The librdkafka whose internals the helpers below were checked against, and the layouts they
 * rely on, checked when this file is compiled: moving the pin (librdkafka-build/VERSION) stops
 * the build here until each reliance has been re-read in the new source and this version moved
 * (librdkafka-build/UPGRADING.md lists them, with the tests that guard each). */
#define CB_RDKAFKA_CHECKED_VERSION 0x020f01ff
#if RD_KAFKA_VERSION != CB_RDKAFKA_CHECKED_VERSION
#error "rdkafka_fast.h reads librdkafka 2.15.1's internals: re-check them (librdkafka-build/UPGRADING.md), then move CB_RDKAFKA_CHECKED_VERSION"
#endif
/* A failed check is a negative array size named after the reliance. */
#define CB_LAYOUT_CHECK(name, cond) typedef char cb_layout_check_##name[(cond) ? 1 : -1]
/* cb_message_may_have_headers() casts a message to the rd_kafka_msg_t that begins with it */
CB_LAYOUT_CHECK(message_begins_msg, offsetof(rd_kafka_msg_t, rkm_rkmessage) == 0);
/* ... and reads the consumed record's raw header block, a length-prefixed byte string */
CB_LAYOUT_CHECK(binhdrs_is_kafkap_bytes,
                sizeof(((rd_kafka_msg_t *)0)->rkm_u.consumer.binhdrs) == sizeof(rd_kafkap_bytes_t));
/* cb_hand_out() takes a consumed message's op from its _private pointer and that op's message */
CB_LAYOUT_CHECK(op_message_is_msg,
                sizeof(((rd_kafka_op_t *)0)->rko_u.fetch.rkm) == sizeof(rd_kafka_msg_t));

static inline int cb_message_may_have_headers(const rd_kafka_message_t *rkmessage) {
        const rd_kafka_msg_t *rkm = (const rd_kafka_msg_t *)rkmessage;
        if (rkm->rkm_headers)
                return 1;
        if (rkm->rkm_flags & RD_KAFKA_MSG_F_PRODUCER)
                return 0;
        return RD_KAFKAP_BYTES_LEN(&rkm->rkm_u.consumer.binhdrs) > 1;
}

#define CB_READ_AHEAD 1

ssize_t rd_kafka_consume_batch_queue_deferred(rd_kafka_queue_t *rkqu,
                                              int timeout_ms,
                                              rd_kafka_message_t **rkmessages,
                                              size_t rkmessages_size);

static inline int cb_hand_out(rd_kafka_t *rk, rd_kafka_message_t *rkmessage) {
        rd_kafka_op_t *rko      = (rd_kafka_op_t *)rkmessage->_private;
        rd_kafka_toppar_t *rktp = rko->rko_rktp;
        rd_kafka_fetch_pos_t pos;
        if (rd_kafka_op_version_outdated(rko, 0))
                return 0;
        if (unlikely(rd_kafka_op_is_ctrl_msg(rko))) {
                pos = RD_KAFKA_FETCH_POS(rkmessage->offset + 1,
                                         rko->rko_u.fetch.rkm.rkm_u.consumer.leader_epoch);
                if (rktp && rd_kafka_fetch_pos_cmp(&pos, &rktp->rktp_app_pos) > 0)
                        rd_kafka_update_app_pos(rk, rktp, pos, RD_DO_LOCK);
                return 0;
        }
        rd_kafka_fetch_op_app_prepare(rk, rko);
        return 1;
}

static inline rd_kafka_resp_err_t cb_last_stable_offset(rd_kafka_t *rk, const char *topic,
                                                        int32_t partition, int64_t *lso) {
        rd_kafka_toppar_t *rktp = rd_kafka_toppar_get2(rk, topic, partition, 0, 1);
        if (!rktp)
                return RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION;
        rd_kafka_toppar_lock(rktp);
        *lso = rktp->rktp_ls_offset;
        rd_kafka_toppar_unlock(rktp);
        rd_kafka_toppar_destroy(rktp);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

#ifdef _WIN32
static inline long long cb_coarse_ms(void) { return (long long)GetTickCount64(); }
#else
static inline long long cb_coarse_ms(void) {
        struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
        clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
#endif

static inline int cb_topic_keep(rd_kafka_topic_t *rkt) {
        rd_kafka_topic_keep(rkt);
        return 1;
}

/* Must run before rd_kafka_destroy(): the last reference frees the topic under the handle's lock. */
static inline void cb_topic_release(rd_kafka_topic_t *rkt) {
        rd_kafka_topic_destroy0(rkt);
}
#else
#include <librdkafka/rdkafka.h>
#define cb_message_may_have_headers(rkmessage) 1
#define cb_topic_keep(rkt) 0
#define cb_topic_release(rkt) ((void)0)
#define CB_READ_AHEAD 0
#define rd_kafka_consume_batch_queue_deferred rd_kafka_consume_batch_queue
#define cb_hand_out(rk, rkmessage) 1
#define cb_coarse_ms() 0LL
#define cb_last_stable_offset(rk, topic, partition, lso) RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED
#endif


#endif

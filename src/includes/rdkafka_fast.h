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
 */
#ifndef CB_RDKAFKA_FAST_H
#define CB_RDKAFKA_FAST_H

#ifdef CB_RDKAFKA_INTERNALS
#include "rdkafka_int.h"
#include "rdkafka_msg.h"

static inline int cb_message_may_have_headers(const rd_kafka_message_t *rkmessage) {
        const rd_kafka_msg_t *rkm = (const rd_kafka_msg_t *)rkmessage;
        if (rkm->rkm_headers)
                return 1;
        if (rkm->rkm_flags & RD_KAFKA_MSG_F_PRODUCER)
                return 0;
        return RD_KAFKAP_BYTES_LEN(&rkm->rkm_u.consumer.binhdrs) > 1;
}

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
#endif

#endif

# librdkafka's share consumer API (KIP-932, rdkafka.h "Share consumer"): only what is used.

from libc.stdint cimport int16_t, int32_t, int64_t

from includes.rdkafka cimport (
    rd_kafka_conf_t,
    rd_kafka_error_t,
    rd_kafka_message_t,
    rd_kafka_queue_t,
    rd_kafka_resp_err_t,
    rd_kafka_topic_partition_list_t,
    rd_kafka_topic_partition_t,
)


cdef extern from "librdkafka/rdkafka.h" nogil:
    ctypedef struct rd_kafka_share_t:
        pass
    ctypedef struct rd_kafka_messages_t:
        pass
    ctypedef struct rd_kafka_share_partition_offsets_t:
        pass
    ctypedef struct rd_kafka_share_partition_offsets_list_t:
        pass

    ctypedef enum rd_kafka_share_AcknowledgeType_t:
        RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT
        RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE
        RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT


# the acknowledgement-commit callback type (the header declares it inline, not as a typedef)
ctypedef void (*rd_kafka_share_ack_commit_cb_t)(
    rd_kafka_share_t *rkshare, rd_kafka_share_partition_offsets_list_t *partitions,
    rd_kafka_resp_err_t err, void *opaque) noexcept with gil


cdef extern from "librdkafka/rdkafka.h" nogil:
    size_t rd_kafka_messages_count(const rd_kafka_messages_t *messages)
    rd_kafka_message_t *rd_kafka_messages_get(const rd_kafka_messages_t *messages, size_t index)
    void rd_kafka_messages_destroy(rd_kafka_messages_t *messages)
    int16_t rd_kafka_message_delivery_count(const rd_kafka_message_t *rkmessage)

    size_t rd_kafka_share_partition_offsets_list_count(
        const rd_kafka_share_partition_offsets_list_t *list)
    const rd_kafka_share_partition_offsets_t *rd_kafka_share_partition_offsets_list_get(
        const rd_kafka_share_partition_offsets_list_t *list, size_t index)
    const rd_kafka_topic_partition_t *rd_kafka_share_partition_offsets_partition(
        const rd_kafka_share_partition_offsets_t *partition_offsets)
    const int64_t *rd_kafka_share_partition_offsets_offsets(
        const rd_kafka_share_partition_offsets_t *partition_offsets)
    size_t rd_kafka_share_partition_offsets_offsets_cnt(
        const rd_kafka_share_partition_offsets_t *partition_offsets)

    rd_kafka_share_t *rd_kafka_share_consumer_new(rd_kafka_conf_t *conf, char *errstr,
                                                  size_t errstr_size)
    rd_kafka_error_t *rd_kafka_share_set_acknowledgement_commit_cb(
        rd_kafka_share_t *rkshare, rd_kafka_share_ack_commit_cb_t cb, void *opaque)
    rd_kafka_resp_err_t rd_kafka_share_subscribe(rd_kafka_share_t *rkshare,
                                                 const rd_kafka_topic_partition_list_t *topics)
    rd_kafka_resp_err_t rd_kafka_share_unsubscribe(rd_kafka_share_t *rkshare)
    rd_kafka_resp_err_t rd_kafka_share_subscription(rd_kafka_share_t *rkshare,
                                                    rd_kafka_topic_partition_list_t **topics)
    rd_kafka_error_t *rd_kafka_share_poll(rd_kafka_share_t *rkshare, int timeout_ms,
                                          rd_kafka_messages_t **rkmessages)
    rd_kafka_resp_err_t rd_kafka_share_acknowledge_offset(
        rd_kafka_share_t *rkshare, const char *topic, int32_t partition, int64_t offset,
        rd_kafka_share_AcknowledgeType_t type)
    rd_kafka_error_t *rd_kafka_share_commit_async(rd_kafka_share_t *rkshare)
    rd_kafka_error_t *rd_kafka_share_commit_sync(rd_kafka_share_t *rkshare, int timeout_ms,
                                                 rd_kafka_topic_partition_list_t **partitions)
    rd_kafka_error_t *rd_kafka_share_consumer_close(rd_kafka_share_t *rkshare)
    rd_kafka_error_t *rd_kafka_share_destroy(rd_kafka_share_t *rkshare)
    rd_kafka_error_t *rd_kafka_share_destroy_flags(rd_kafka_share_t *rkshare, int flags)
    rd_kafka_error_t *rd_kafka_share_sasl_background_callbacks_enable(rd_kafka_share_t *rkshare)
    rd_kafka_queue_t *rd_kafka_share_queue_get_sasl(rd_kafka_share_t *rkshare)
    rd_kafka_error_t *rd_kafka_share_set_log_queue(rd_kafka_share_t *rkshare,
                                                   rd_kafka_queue_t *rkqu)
    rd_kafka_error_t *rd_kafka_share_sasl_set_credentials(rd_kafka_share_t *rkshare,
                                                          const char *username,
                                                          const char *password)
    rd_kafka_resp_err_t rd_kafka_share_oauthbearer_set_token(
        rd_kafka_share_t *rkshare, const char *token_value, int64_t md_lifetime_ms,
        const char *md_principal_name, const char **extensions, size_t extension_size,
        char *errstr, size_t errstr_size)
    rd_kafka_resp_err_t rd_kafka_share_oauthbearer_set_token_failure(rd_kafka_share_t *rkshare,
                                                                     const char *errstr)

# Declarations from librdkafka/rdkafka.h (the client API: handles, configuration, messages,
# producer, consumer, metadata, events), in header order, limited to what the binding uses.
# Every function is nogil; callbacks handed to librdkafka are plain C function pointers and the
# binding's trampolines take the GIL themselves (they only ever run inside a call the binding made
# from a Python thread: poll/consume/flush/close). Other parts of the header (the Admin API, ...)
# get their own file next to this one.

from libc.stdint cimport int32_t, int64_t
from libc.stdio cimport FILE

cdef extern from "librdkafka/rdkafka.h" nogil:
    int RD_KAFKA_VERSION

    int rd_kafka_version()
    const char *rd_kafka_version_str()

    ctypedef enum rd_kafka_type_t:
        RD_KAFKA_PRODUCER
        RD_KAFKA_CONSUMER

    ctypedef enum rd_kafka_timestamp_type_t:
        RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        RD_KAFKA_TIMESTAMP_CREATE_TIME
        RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME

    ctypedef struct rd_kafka_t:
        pass
    ctypedef struct rd_kafka_topic_t:
        pass
    ctypedef struct rd_kafka_conf_t:
        pass
    ctypedef struct rd_kafka_topic_conf_t:
        pass
    ctypedef struct rd_kafka_queue_t:
        pass
    ctypedef struct rd_kafka_event_t:
        pass
    ctypedef struct rd_kafka_consumer_group_metadata_t:
        pass
    ctypedef struct rd_kafka_error_t:
        pass
    ctypedef struct rd_kafka_headers_t:
        pass

    ctypedef enum rd_kafka_resp_err_t:
        RD_KAFKA_RESP_ERR__BAD_MSG
        RD_KAFKA_RESP_ERR__DESTROY
        RD_KAFKA_RESP_ERR__FAIL
        RD_KAFKA_RESP_ERR__MSG_TIMED_OUT
        RD_KAFKA_RESP_ERR__PARTITION_EOF
        RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION
        RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC
        RD_KAFKA_RESP_ERR__INVALID_ARG
        RD_KAFKA_RESP_ERR__TIMED_OUT
        RD_KAFKA_RESP_ERR__QUEUE_FULL
        RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS
        RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS
        RD_KAFKA_RESP_ERR__NOENT
        RD_KAFKA_RESP_ERR__STATE
        RD_KAFKA_RESP_ERR__CONFLICT
        RD_KAFKA_RESP_ERR__FATAL
        RD_KAFKA_RESP_ERR__PURGE_QUEUE
        RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED
        RD_KAFKA_RESP_ERR_NO_ERROR
        RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE

    struct rd_kafka_err_desc:
        rd_kafka_resp_err_t code
        const char *name
        const char *desc

    void rd_kafka_get_err_descs(const rd_kafka_err_desc **errdescs, size_t *cntp)
    const char *rd_kafka_err2str(rd_kafka_resp_err_t err)
    const char *rd_kafka_err2name(rd_kafka_resp_err_t err)
    rd_kafka_resp_err_t rd_kafka_last_error()
    rd_kafka_resp_err_t rd_kafka_fatal_error(rd_kafka_t *rk, char *errstr, size_t errstr_size)

    rd_kafka_resp_err_t rd_kafka_error_code(const rd_kafka_error_t *error)
    const char *rd_kafka_error_string(const rd_kafka_error_t *error)
    int rd_kafka_error_is_fatal(const rd_kafka_error_t *error)
    int rd_kafka_error_is_retriable(const rd_kafka_error_t *error)
    int rd_kafka_error_txn_requires_abort(const rd_kafka_error_t *error)
    void rd_kafka_error_destroy(rd_kafka_error_t *error)

    ctypedef struct rd_kafka_topic_partition_t:
        char *topic
        int32_t partition
        int64_t offset
        void *metadata
        size_t metadata_size
        void *opaque
        rd_kafka_resp_err_t err

    int32_t rd_kafka_topic_partition_get_leader_epoch(const rd_kafka_topic_partition_t *rktpar)
    void rd_kafka_topic_partition_set_leader_epoch(rd_kafka_topic_partition_t *rktpar,
                                                   int32_t leader_epoch)

    ctypedef struct rd_kafka_topic_partition_list_t:
        int cnt
        int size
        rd_kafka_topic_partition_t *elems

    rd_kafka_topic_partition_list_t *rd_kafka_topic_partition_list_new(int size)
    void rd_kafka_topic_partition_list_destroy(rd_kafka_topic_partition_list_t *rkparlist)
    rd_kafka_topic_partition_t *rd_kafka_topic_partition_list_add(
        rd_kafka_topic_partition_list_t *rktparlist, const char *topic, int32_t partition)
    rd_kafka_topic_partition_list_t *rd_kafka_topic_partition_list_copy(
        const rd_kafka_topic_partition_list_t *src)

    ctypedef enum rd_kafka_vtype_t:
        RD_KAFKA_VTYPE_END
        RD_KAFKA_VTYPE_TOPIC
        RD_KAFKA_VTYPE_RKT
        RD_KAFKA_VTYPE_PARTITION
        RD_KAFKA_VTYPE_VALUE
        RD_KAFKA_VTYPE_KEY
        RD_KAFKA_VTYPE_OPAQUE
        RD_KAFKA_VTYPE_MSGFLAGS
        RD_KAFKA_VTYPE_TIMESTAMP
        RD_KAFKA_VTYPE_HEADER
        RD_KAFKA_VTYPE_HEADERS

    ctypedef struct _rd_kafka_vu_mem:
        void *ptr
        size_t size

    ctypedef struct _rd_kafka_vu_header:
        const char *name
        const void *val
        ssize_t size

    ctypedef union _rd_kafka_vu_u:
        const char *cstr
        rd_kafka_topic_t *rkt
        int i
        int32_t i32
        int64_t i64
        _rd_kafka_vu_mem mem
        _rd_kafka_vu_header header
        rd_kafka_headers_t *headers
        void *ptr

    ctypedef struct rd_kafka_vu_t:
        rd_kafka_vtype_t vtype
        _rd_kafka_vu_u u

    rd_kafka_resp_err_t rd_kafka_header_get_all(const rd_kafka_headers_t *hdrs, size_t idx,
                                                const char **namep, const void **valuep,
                                                size_t *sizep)
    rd_kafka_headers_t *rd_kafka_headers_new(size_t initial_count)
    void rd_kafka_headers_destroy(rd_kafka_headers_t *hdrs)
    rd_kafka_resp_err_t rd_kafka_header_add(rd_kafka_headers_t *hdrs, const char *name,
                                            ssize_t name_size, const void *value,
                                            ssize_t value_size)

    ctypedef struct rd_kafka_message_t:
        rd_kafka_resp_err_t err
        rd_kafka_topic_t *rkt
        int32_t partition
        void *payload
        size_t len
        void *key
        size_t key_len
        int64_t offset
        void *_private

    void rd_kafka_message_destroy(rd_kafka_message_t *rkmessage)
    const char *rd_kafka_message_errstr(const rd_kafka_message_t *rkmessage)
    int64_t rd_kafka_message_timestamp(const rd_kafka_message_t *rkmessage,
                                       rd_kafka_timestamp_type_t *tstype)
    int64_t rd_kafka_message_latency(const rd_kafka_message_t *rkmessage)
    rd_kafka_resp_err_t rd_kafka_message_headers(const rd_kafka_message_t *rkmessage,
                                                 rd_kafka_headers_t **hdrsp)
    int32_t rd_kafka_message_leader_epoch(const rd_kafka_message_t *rkmessage)

    ctypedef enum rd_kafka_conf_res_t:
        RD_KAFKA_CONF_UNKNOWN
        RD_KAFKA_CONF_INVALID
        RD_KAFKA_CONF_OK

    rd_kafka_conf_t *rd_kafka_conf_new()
    void rd_kafka_conf_destroy(rd_kafka_conf_t *conf)
    rd_kafka_conf_res_t rd_kafka_conf_set(rd_kafka_conf_t *conf, const char *name,
                                          const char *value, char *errstr, size_t errstr_size)
    void rd_kafka_conf_properties_show(FILE *fp)
    rd_kafka_conf_res_t rd_kafka_conf_get(const rd_kafka_conf_t *conf, const char *name,
                                          char *dest, size_t *dest_size)
    void rd_kafka_conf_set_events(rd_kafka_conf_t *conf, int events)
    void rd_kafka_conf_enable_sasl_queue(rd_kafka_conf_t *conf, int enable)
    void rd_kafka_conf_set_rebalance_cb(
        rd_kafka_conf_t *conf,
        void (*rebalance_cb)(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t *partitions, void *opaque))
    void rd_kafka_conf_set_offset_commit_cb(
        rd_kafka_conf_t *conf,
        void (*offset_commit_cb)(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                                 rd_kafka_topic_partition_list_t *offsets, void *opaque))
    void rd_kafka_conf_set_error_cb(
        rd_kafka_conf_t *conf,
        void (*error_cb)(rd_kafka_t *rk, int err, const char *reason, void *opaque))
    void rd_kafka_conf_set_throttle_cb(
        rd_kafka_conf_t *conf,
        void (*throttle_cb)(rd_kafka_t *rk, const char *broker_name, int32_t broker_id,
                            int throttle_time_ms, void *opaque))
    void rd_kafka_conf_set_log_cb(
        rd_kafka_conf_t *conf,
        void (*log_cb)(const rd_kafka_t *rk, int level, const char *fac, const char *buf))
    void rd_kafka_conf_set_stats_cb(
        rd_kafka_conf_t *conf,
        int (*stats_cb)(rd_kafka_t *rk, char *json, size_t json_len, void *opaque))
    void rd_kafka_conf_set_oauthbearer_token_refresh_cb(
        rd_kafka_conf_t *conf,
        void (*oauthbearer_token_refresh_cb)(rd_kafka_t *rk, const char *oauthbearer_config,
                                             void *opaque))
    void rd_kafka_conf_set_opaque(rd_kafka_conf_t *conf, void *opaque)
    void *rd_kafka_opaque(const rd_kafka_t *rk)

    rd_kafka_t *rd_kafka_new(rd_kafka_type_t type, rd_kafka_conf_t *conf, char *errstr,
                             size_t errstr_size)
    void rd_kafka_destroy(rd_kafka_t *rk)
    int RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE
    void rd_kafka_destroy_flags(rd_kafka_t *rk, int flags)
    const char *rd_kafka_name(const rd_kafka_t *rk)
    char *rd_kafka_memberid(const rd_kafka_t *rk)

    rd_kafka_topic_t *rd_kafka_topic_new(rd_kafka_t *rk, const char *topic,
                                         rd_kafka_topic_conf_t *conf)
    void rd_kafka_topic_destroy(rd_kafka_topic_t *rkt)
    const char *rd_kafka_topic_name(const rd_kafka_topic_t *rkt)

    int RD_KAFKA_PARTITION_UA

    int rd_kafka_poll(rd_kafka_t *rk, int timeout_ms)
    void rd_kafka_yield(rd_kafka_t *rk)
    rd_kafka_resp_err_t rd_kafka_pause_partitions(rd_kafka_t *rk,
                                                  rd_kafka_topic_partition_list_t *partitions)
    rd_kafka_resp_err_t rd_kafka_resume_partitions(rd_kafka_t *rk,
                                                   rd_kafka_topic_partition_list_t *partitions)
    rd_kafka_resp_err_t rd_kafka_query_watermark_offsets(rd_kafka_t *rk, const char *topic,
                                                         int32_t partition, int64_t *low,
                                                         int64_t *high, int timeout_ms)
    rd_kafka_resp_err_t rd_kafka_get_watermark_offsets(rd_kafka_t *rk, const char *topic,
                                                       int32_t partition, int64_t *low,
                                                       int64_t *high)
    rd_kafka_resp_err_t rd_kafka_offsets_for_times(rd_kafka_t *rk,
                                                   rd_kafka_topic_partition_list_t *offsets,
                                                   int timeout_ms)
    void rd_kafka_mem_free(rd_kafka_t *rk, void *ptr)

    rd_kafka_queue_t *rd_kafka_queue_get_main(rd_kafka_t *rk)
    rd_kafka_queue_t *rd_kafka_queue_get_consumer(rd_kafka_t *rk)
    rd_kafka_queue_t *rd_kafka_queue_new(rd_kafka_t *rk)
    void rd_kafka_queue_destroy(rd_kafka_queue_t *rkqu)
    void rd_kafka_queue_io_event_enable(rd_kafka_queue_t *rkqu, int fd, const void *payload,
                                        size_t size)
    void rd_kafka_queue_yield(rd_kafka_queue_t *rkqu)
    rd_kafka_resp_err_t rd_kafka_set_log_queue(rd_kafka_t *rk, rd_kafka_queue_t *rkqu)
    rd_kafka_error_t *rd_kafka_sasl_background_callbacks_enable(rd_kafka_t *rk)
    rd_kafka_queue_t *rd_kafka_queue_get_sasl(rd_kafka_t *rk)
    void rd_kafka_queue_forward(rd_kafka_queue_t *src, rd_kafka_queue_t *dst)
    int rd_kafka_queue_poll_callback(rd_kafka_queue_t *rkqu, int timeout_ms)

    int64_t RD_KAFKA_OFFSET_BEGINNING
    int64_t RD_KAFKA_OFFSET_END
    int64_t RD_KAFKA_OFFSET_STORED
    int64_t RD_KAFKA_OFFSET_INVALID

    ssize_t rd_kafka_consume_batch_queue(rd_kafka_queue_t *rkqu, int timeout_ms,
                                         rd_kafka_message_t **rkmessages, size_t rkmessages_size)

    rd_kafka_resp_err_t rd_kafka_offsets_store(rd_kafka_t *rk,
                                               rd_kafka_topic_partition_list_t *offsets)
    rd_kafka_resp_err_t rd_kafka_subscribe(rd_kafka_t *rk,
                                           const rd_kafka_topic_partition_list_t *topics)
    rd_kafka_resp_err_t rd_kafka_unsubscribe(rd_kafka_t *rk)
    rd_kafka_message_t *rd_kafka_consumer_poll(rd_kafka_t *rk, int timeout_ms)
    rd_kafka_error_t *rd_kafka_consumer_close_queue(rd_kafka_t *rk, rd_kafka_queue_t *rkqu)
    int rd_kafka_consumer_closed(rd_kafka_t *rk)
    rd_kafka_error_t *rd_kafka_incremental_assign(rd_kafka_t *rk,
                                                  const rd_kafka_topic_partition_list_t *partitions)
    rd_kafka_error_t *rd_kafka_incremental_unassign(
        rd_kafka_t *rk, const rd_kafka_topic_partition_list_t *partitions)
    const char *rd_kafka_rebalance_protocol(rd_kafka_t *rk)
    rd_kafka_resp_err_t rd_kafka_assign(rd_kafka_t *rk,
                                        const rd_kafka_topic_partition_list_t *partitions)
    rd_kafka_resp_err_t rd_kafka_assignment(rd_kafka_t *rk,
                                            rd_kafka_topic_partition_list_t **partitions)
    int rd_kafka_assignment_lost(rd_kafka_t *rk)
    rd_kafka_resp_err_t rd_kafka_commit(rd_kafka_t *rk,
                                        const rd_kafka_topic_partition_list_t *offsets, int async)
    rd_kafka_resp_err_t rd_kafka_commit_queue(
        rd_kafka_t *rk, const rd_kafka_topic_partition_list_t *offsets, rd_kafka_queue_t *rkqu,
        void (*cb)(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                   rd_kafka_topic_partition_list_t *offsets, void *commit_opaque),
        void *commit_opaque)
    rd_kafka_resp_err_t rd_kafka_committed(rd_kafka_t *rk,
                                           rd_kafka_topic_partition_list_t *partitions,
                                           int timeout_ms)
    rd_kafka_resp_err_t rd_kafka_position(rd_kafka_t *rk,
                                          rd_kafka_topic_partition_list_t *partitions)
    rd_kafka_error_t *rd_kafka_seek_partitions(rd_kafka_t *rk,
                                               rd_kafka_topic_partition_list_t *partitions,
                                               int timeout_ms)

    rd_kafka_consumer_group_metadata_t *rd_kafka_consumer_group_metadata(rd_kafka_t *rk)
    void rd_kafka_consumer_group_metadata_destroy(rd_kafka_consumer_group_metadata_t *)
    rd_kafka_error_t *rd_kafka_consumer_group_metadata_write(
        const rd_kafka_consumer_group_metadata_t *cgmd, void **bufferp, size_t *sizep)
    rd_kafka_error_t *rd_kafka_consumer_group_metadata_read(
        rd_kafka_consumer_group_metadata_t **cgmdp, const void *buffer, size_t size)

    int RD_KAFKA_MSG_F_COPY
    # the partitioners librdkafka's `partitioner` property names (the non-random ones do not
    # use the topic handle nor the opaques)
    int32_t rd_kafka_msg_partitioner_consistent(const rd_kafka_topic_t *rkt, const void *key,
                                                size_t keylen, int32_t partition_cnt,
                                                void *rkt_opaque, void *msg_opaque)
    int32_t rd_kafka_msg_partitioner_murmur2(const rd_kafka_topic_t *rkt, const void *key,
                                             size_t keylen, int32_t partition_cnt,
                                             void *rkt_opaque, void *msg_opaque)
    int32_t rd_kafka_msg_partitioner_fnv1a(const rd_kafka_topic_t *rkt, const void *key,
                                           size_t keylen, int32_t partition_cnt,
                                           void *rkt_opaque, void *msg_opaque)

    int rd_kafka_produce(rd_kafka_topic_t *rkt, int32_t partition, int msgflags, void *payload,
                         size_t len, const void *key, size_t keylen, void *msg_opaque)
    rd_kafka_error_t *rd_kafka_produceva(rd_kafka_t *rk, const rd_kafka_vu_t *vus, size_t cnt)
    rd_kafka_resp_err_t rd_kafka_flush(rd_kafka_t *rk, int timeout_ms)

    int RD_KAFKA_PURGE_F_QUEUE
    int RD_KAFKA_PURGE_F_INFLIGHT
    int RD_KAFKA_PURGE_F_NON_BLOCKING
    rd_kafka_resp_err_t rd_kafka_purge(rd_kafka_t *rk, int purge_flags)

    ctypedef struct rd_kafka_metadata_broker_t:
        int32_t id
        char *host
        int port

    ctypedef struct rd_kafka_metadata_partition_t:
        int32_t id
        rd_kafka_resp_err_t err
        int32_t leader
        int replica_cnt
        int32_t *replicas
        int isr_cnt
        int32_t *isrs

    ctypedef struct rd_kafka_metadata_topic_t:
        char *topic
        int partition_cnt
        rd_kafka_metadata_partition_t *partitions
        rd_kafka_resp_err_t err

    ctypedef struct rd_kafka_metadata_t:
        int broker_cnt
        rd_kafka_metadata_broker_t *brokers
        int topic_cnt
        rd_kafka_metadata_topic_t *topics
        int32_t orig_broker_id
        char *orig_broker_name

    rd_kafka_resp_err_t rd_kafka_metadata(rd_kafka_t *rk, int all_topics,
                                          rd_kafka_topic_t *only_rkt,
                                          const rd_kafka_metadata_t **metadatap, int timeout_ms)
    void rd_kafka_metadata_destroy(const rd_kafka_metadata_t *metadata)
    char *rd_kafka_clusterid(rd_kafka_t *rk, int timeout_ms)
    int32_t rd_kafka_controllerid(rd_kafka_t *rk, int timeout_ms)

    struct rd_kafka_group_member_info:
        char *member_id
        char *client_id
        char *client_host
        void *member_metadata
        int member_metadata_size
        void *member_assignment
        int member_assignment_size
    struct rd_kafka_group_info:
        rd_kafka_metadata_broker_t broker
        char *group
        rd_kafka_resp_err_t err
        char *state
        char *protocol_type
        char *protocol
        rd_kafka_group_member_info *members
        int member_cnt
    struct rd_kafka_group_list:
        rd_kafka_group_info *groups
        int group_cnt
    rd_kafka_resp_err_t rd_kafka_list_groups(rd_kafka_t *rk, const char *group,
                                             const rd_kafka_group_list **grplistp,
                                             int timeout_ms)
    void rd_kafka_group_list_destroy(const rd_kafka_group_list *grplist)

    int rd_kafka_outq_len(rd_kafka_t *rk)

    ctypedef int rd_kafka_event_type_t
    int RD_KAFKA_EVENT_NONE
    int RD_KAFKA_EVENT_DR
    int RD_KAFKA_EVENT_LOG
    int RD_KAFKA_EVENT_ERROR
    int RD_KAFKA_EVENT_STATS
    int RD_KAFKA_EVENT_OAUTHBEARER_TOKEN_REFRESH
    int RD_KAFKA_EVENT_CREATETOPICS_RESULT
    int RD_KAFKA_EVENT_DELETETOPICS_RESULT
    int RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT
    int RD_KAFKA_EVENT_ALTERCONFIGS_RESULT
    int RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT
    int RD_KAFKA_EVENT_DELETERECORDS_RESULT
    int RD_KAFKA_EVENT_DELETEGROUPS_RESULT
    int RD_KAFKA_EVENT_CREATEACLS_RESULT
    int RD_KAFKA_EVENT_DESCRIBEACLS_RESULT
    int RD_KAFKA_EVENT_DELETEACLS_RESULT
    int RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT
    int RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT
    int RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT
    int RD_KAFKA_EVENT_ALTERCONSUMERGROUPOFFSETS_RESULT
    int RD_KAFKA_EVENT_INCREMENTALALTERCONFIGS_RESULT
    int RD_KAFKA_EVENT_DESCRIBEUSERSCRAMCREDENTIALS_RESULT
    int RD_KAFKA_EVENT_ALTERUSERSCRAMCREDENTIALS_RESULT
    int RD_KAFKA_EVENT_DESCRIBETOPICS_RESULT
    int RD_KAFKA_EVENT_DESCRIBECLUSTER_RESULT
    int RD_KAFKA_EVENT_LISTOFFSETS_RESULT
    int RD_KAFKA_EVENT_ELECTLEADERS_RESULT
    int RD_KAFKA_EVENT_REBALANCE
    int RD_KAFKA_EVENT_OFFSET_COMMIT

    rd_kafka_event_type_t rd_kafka_event_type(const rd_kafka_event_t *rkev)
    void rd_kafka_event_destroy(rd_kafka_event_t *rkev)
    size_t rd_kafka_event_message_array(rd_kafka_event_t *rkev,
                                        const rd_kafka_message_t **rkmessages, size_t size)
    const char *rd_kafka_event_config_string(rd_kafka_event_t *rkev)
    rd_kafka_resp_err_t rd_kafka_event_error(rd_kafka_event_t *rkev)
    const char *rd_kafka_event_error_string(rd_kafka_event_t *rkev)
    int rd_kafka_event_error_is_fatal(rd_kafka_event_t *rkev)
    int rd_kafka_event_log(rd_kafka_event_t *rkev, const char **fac, const char **str,
                           int *level)
    const char *rd_kafka_event_stats(rd_kafka_event_t *rkev)
    void *rd_kafka_event_opaque(rd_kafka_event_t *rkev)
    rd_kafka_topic_partition_list_t *rd_kafka_event_topic_partition_list(rd_kafka_event_t *rkev)
    rd_kafka_event_t *rd_kafka_queue_poll(rd_kafka_queue_t *rkqu, int timeout_ms)
    rd_kafka_resp_err_t rd_kafka_poll_set_consumer(rd_kafka_t *rk)

    rd_kafka_resp_err_t rd_kafka_oauthbearer_set_token(
        rd_kafka_t *rk, const char *token_value, int64_t md_lifetime_ms,
        const char *md_principal_name, const char **extensions, size_t extension_size,
        char *errstr, size_t errstr_size)
    rd_kafka_resp_err_t rd_kafka_oauthbearer_set_token_failure(rd_kafka_t *rk,
                                                               const char *errstr)

    rd_kafka_error_t *rd_kafka_init_transactions(rd_kafka_t *rk, int timeout_ms)
    rd_kafka_error_t *rd_kafka_begin_transaction(rd_kafka_t *rk)
    rd_kafka_error_t *rd_kafka_send_offsets_to_transaction(
        rd_kafka_t *rk, const rd_kafka_topic_partition_list_t *offsets,
        const rd_kafka_consumer_group_metadata_t *cgmetadata, int timeout_ms)
    rd_kafka_error_t *rd_kafka_commit_transaction(rd_kafka_t *rk, int timeout_ms)
    rd_kafka_error_t *rd_kafka_abort_transaction(rd_kafka_t *rk, int timeout_ms)

    rd_kafka_error_t *rd_kafka_sasl_set_credentials(rd_kafka_t *rk, const char *username,
                                                    const char *password)


# rdkafka_fast.h: faster equivalents of public calls on hot paths.
cdef extern from "rdkafka_fast.h" nogil:
    bint cb_message_may_have_headers(const rd_kafka_message_t *rkmessage)
    bint cb_topic_keep(rd_kafka_topic_t *rkt)
    void cb_topic_release(rd_kafka_topic_t *rkt)
    enum: CB_READ_AHEAD
    ssize_t rd_kafka_consume_batch_queue_deferred(rd_kafka_queue_t *rkqu, int timeout_ms,
                                                  rd_kafka_message_t **rkmessages,
                                                  size_t rkmessages_size)
    bint cb_hand_out(rd_kafka_t *rk, rd_kafka_message_t *rkmessage)
    long long cb_coarse_ms()
    rd_kafka_resp_err_t cb_last_stable_offset(rd_kafka_t *rk, const char *topic,
                                              int32_t partition, int64_t *lso)

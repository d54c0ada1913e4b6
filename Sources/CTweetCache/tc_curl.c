#include "tc_curl.h"

CURLcode tc_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

CURLcode tc_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
CURLcode tc_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
CURLcode tc_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
CURLcode tc_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
CURLcode tc_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
CURLcode tc_easy_setopt_data_cb(CURL *h, CURLoption o, tc_curl_data_cb cb) { return curl_easy_setopt(h, o, cb); }
CURLcode tc_easy_setopt_xferinfo_cb(CURL *h, tc_curl_xferinfo_cb cb) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
}

CURLcode tc_easy_getinfo_long(CURL *h, CURLINFO i, long *out) { return curl_easy_getinfo(h, i, out); }
CURLcode tc_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *out) { return curl_easy_getinfo(h, i, out); }
CURLcode tc_easy_getinfo_double(CURL *h, CURLINFO i, double *out) { return curl_easy_getinfo(h, i, out); }
CURLcode tc_easy_getinfo_string(CURL *h, CURLINFO i, const char **out) { return curl_easy_getinfo(h, i, out); }
CURLcode tc_easy_getinfo_pointer(CURL *h, CURLINFO i, void **out) { return curl_easy_getinfo(h, i, out); }
CURLcode tc_easy_getinfo_socket(CURL *h, CURLINFO i, curl_socket_t *out) { return curl_easy_getinfo(h, i, out); }

CURLMcode tc_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

const curl_version_info_data *tc_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }

int tc_multi_msg_is_done(const CURLMsg *msg) { return msg->msg == CURLMSG_DONE; }
CURL *tc_multi_msg_easy(const CURLMsg *msg) { return msg->easy_handle; }
CURLcode tc_multi_msg_result(const CURLMsg *msg) { return msg->data.result; }

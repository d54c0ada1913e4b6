#ifndef TC_CURL_H
#define TC_CURL_H
/*
 * Typed wrappers for libcurl's variadic calls.
 *
 * Swift cannot call C variadic functions, and curl_easy_setopt/curl_multi_setopt/
 * curl_easy_getinfo take their third argument through `...`. Each wrapper fixes
 * one argument type so the call is type-checked on both sides; nothing else
 * lives here.
 */
#include <curl/curl.h>

typedef size_t (*tc_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*tc_curl_xferinfo_cb)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                   curl_off_t ultotal, curl_off_t ulnow);

/* curl_global_init(CURL_GLOBAL_DEFAULT), once per process (not thread-safe before 7.84). */
CURLcode tc_curl_global_init(void);

CURLcode tc_easy_setopt_long(CURL *h, CURLoption o, long v);
CURLcode tc_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v);
/* libcurl copies string options (since 7.17), so `v` may be freed after the call. */
CURLcode tc_easy_setopt_string(CURL *h, CURLoption o, const char *v);
CURLcode tc_easy_setopt_pointer(CURL *h, CURLoption o, void *v);
/* The list must outlive the transfer: libcurl does not copy it. */
CURLcode tc_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v);
/* For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
CURLcode tc_easy_setopt_data_cb(CURL *h, CURLoption o, tc_curl_data_cb cb);
CURLcode tc_easy_setopt_xferinfo_cb(CURL *h, tc_curl_xferinfo_cb cb);

CURLcode tc_easy_getinfo_long(CURL *h, CURLINFO i, long *out);
CURLcode tc_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *out);
CURLcode tc_easy_getinfo_double(CURL *h, CURLINFO i, double *out);
/* The string belongs to the handle and is valid until the next call on it. */
CURLcode tc_easy_getinfo_string(CURL *h, CURLINFO i, const char **out);
CURLcode tc_easy_getinfo_pointer(CURL *h, CURLINFO i, void **out);
/* CURLINFO_ACTIVESOCKET: the socket a CURLOPT_CONNECT_ONLY transfer left open. */
CURLcode tc_easy_getinfo_socket(CURL *h, CURLINFO i, curl_socket_t *out);

CURLMcode tc_multi_setopt_long(CURLM *m, CURLMoption o, long v);

/* CURLVERSION_NOW does not import into Swift. */
const curl_version_info_data *tc_curl_version_info(void);

/* Fields of a finished transfer's CURLMsg (the union does not import cleanly). */
int tc_multi_msg_is_done(const CURLMsg *msg);
CURL *tc_multi_msg_easy(const CURLMsg *msg);
CURLcode tc_multi_msg_result(const CURLMsg *msg);

#endif

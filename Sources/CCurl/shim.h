#ifndef PUSHSEAL_CCURL_SHIM_H
#define PUSHSEAL_CCURL_SHIM_H
#include <curl/curl.h>

/* Swift cannot call C variadic functions: typed, fixed-arity wrappers for the options we set. */
static inline CURLcode pushseal_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushseal_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushseal_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushseal_curl_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLMcode pushseal_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
static inline CURLcode pushseal_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode pushseal_curl_getinfo_pointer(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
/* The result of a finished transfer (CURLMsg.data is a union). */
static inline CURLcode pushseal_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}
/* CURLVERSION_NOW is a macro naming the latest enum value, which Swift cannot import. */
static inline curl_version_info_data *pushseal_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
#endif

/* SPDX-License-Identifier: Apache-2.0 */
// libcurl (the OpenSSL flavour, libcurl4): the captive-portal API check's HTTPS client. Only NetworkHints imports it.
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per argument kind.
static inline CURLcode pathmond_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pathmond_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pathmond_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pathmond_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*pathmond_curl_write_function)(char *data, size_t size, size_t count, void *context);
static inline CURLcode pathmond_curl_set_write_function(CURL *handle, pathmond_curl_write_function function) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, function);
}
static inline CURLcode pathmond_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode pathmond_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

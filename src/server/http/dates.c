/*
 * The Date header value and the access log date of this second, made
 * once a second in each thread (http.h).
 */

#include <time.h>

#include "server/http/handler.h"
#include "server/http/http.h"

typedef struct {
    time_t sec;
    char   http[NICD_HTTP_DATE_LEN + 1];
    char   log[NICD_LOG_DATE_LEN + 1];
} date_cache_t;

static _Thread_local date_cache_t dates;

static void
refresh_dates(void)
{
    time_t t = time(NULL);

    if (t != dates.sec) {
        dates.sec = t;
        nicd_http_date(dates.http, t);
        nicd_log_date(dates.log, t);
    }
}

/* this thread's dates of the current second: HTTP's and the log's */
const char *
nicd_date_http(void)
{
    refresh_dates();
    return dates.http;
}

const char *
nicd_date_log(void)
{
    refresh_dates();
    return dates.log;
}

/* Statuses after which the connection is closed, as nginx does. */

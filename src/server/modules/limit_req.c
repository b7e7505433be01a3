/*
 * Request rate limits, as nginx's ngx_http_limit_req_module:
 *
 *   limit_req_zone KEY zone=NAME:SIZE rate=N r/s | r/m;   (http)
 *       a zone of states, one per value of KEY (a template: usually
 *       $binary_remote_addr); an empty KEY is not limited.  SIZE bounds
 *       the states (about 16,000 a megabyte, as nginx's): a new key
 *       takes the place of the one used longest ago when the zone is
 *       full.
 *   limit_req zone=NAME [burst=N] [nodelay | delay=N];   (http, server,
 *       location; several at one level; a level without any takes its
 *       enclosing level's)
 *   limit_req_dry_run on | off;  limit_req_log_level info | notice |
 *       warn | error;  limit_req_status CODE;  $limit_req_status
 *
 * Each state is nginx's leaky bucket: excess, in thousandths of a
 * request, drains at the zone's rate and grows by one request per
 * request.  A request whose excess would pass its limit's burst is
 * refused (limit_req_status, 503 by default) with a log line at
 * limit_req_log_level; one whose excess passes its delay (0 without
 * delay=, all of the burst with nodelay) waits until the excess beyond
 * it has drained (the phase engine's delay, handler.h), logged a level
 * lower.  Refused requests are not counted.  A request is limited once,
 * whatever internal redirects follow.
 *
 * The zones are the configuration's: shared by every worker thread
 * (a mutex each), started afresh at a reload (nginx keeps a zone of the
 * same name and size across one).
 */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "server/conf/directive.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

#define KEY_MAX        64 /* key bytes a state keeps (longer: its hash) */
#define STATE_BYTES    64 /* zone bytes a state stands for (nginx's) */
#define ZONE_MIN       (32 * 1024)
#define NODELAY        INT64_MAX
#define IDLE_FORGET_MS 60000
#define MAX_LIMITS     16 /* limit_req lines a level */

typedef struct node_s {
    struct node_s *hnext;       /* its bucket's chain */
    struct node_s *prev, *next; /* by use: the zone's newest first */
    uint64_t       hash;
    int64_t        excess; /* thousandths of a request */
    long           last;   /* ms */
    size_t         len;
    char           key[KEY_MAX];
} node_t;

typedef struct {
    char           *name;
    size_t          size; /* 0: named by limit_req, not yet defined */
    int64_t         rate; /* thousandths of a request a second */
    nicd_cv_t      *key;
    const char     *where; /* the first limit_req that named it */
    pthread_mutex_t lock;
    node_t        **buckets;
    size_t          mask; /* buckets - 1 */
    node_t         *nodes;
    size_t          cap, used;
    node_t         *newest, *oldest;
} zone_t;

typedef struct {
    zone_t *zone;
    int64_t burst, delay; /* thousandths of a request */
} limit_t;

typedef struct {
    limit_t *limits; /* limit_req lines of the level, in order */
    int      nlimits;
    int      dry_run, log_level, status;
    /* the http level's: every zone, by name, and $limit_req_status'
     * index (kept once the request has been limited) */
    zone_t **zones;
    int      nzones;
    int      status_var;
    int      nlimits_seen; /* limit_req lines anywhere */
} lr_conf_t;

enum {
    ST_PASSED = 0,
    ST_DELAYED,
    ST_REJECTED,
    ST_DELAYED_DRY,
    ST_REJECTED_DRY
};
static const char *const status_names[] = {
    "PASSED", "DELAYED", "REJECTED", "DELAYED_DRY_RUN", "REJECTED_DRY_RUN"};

nicd_module_t nicd_limit_req_module;

static void *
create_conf(nicd_conf_t *c)
{
    lr_conf_t *lc = nicd_conf_alloc(c, sizeof(lr_conf_t));

    if (lc != NULL) {
        lc->dry_run = NICD_UNSET;
        lc->log_level = NICD_UNSET;
        lc->status = NICD_UNSET;
    }
    return lc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const lr_conf_t *p = prev;
    lr_conf_t       *lc = conf;

    (void) c;
    NICD_MERGE_LIST(lc, p, limits, nlimits);
    NICD_MERGE(lc, p, dry_run, 0);
    NICD_MERGE(lc, p, log_level, LOG_ERR);
    NICD_MERGE(lc, p, status, 503);
    return NULL;
}

/* the zone called name (len bytes), made (undefined) when there is none */
static zone_t *
zone_named(nicd_conf_t *c, const char *name, size_t len)
{
    lr_conf_t *h = NICD_LOC_CONF(c->http, nicd_limit_req_module);

    return nicd_conf_named_object(c, (void ***) &h->zones, &h->nzones, name,
                                  len, sizeof(zone_t));
}

/* "N r/s" or "N r/m" as thousandths of a request a second */
static const char *
parse_rate(const char *v, int64_t *rate)
{
    char *end;
    long  n = strtol(v, &end, 10);

    if (end == v || n <= 0 || n > 1000000000L) {
        return "invalid rate";
    }
    if (strcmp(end, "r/s") == 0) {
        *rate = (int64_t) n * 1000;
    } else if (strcmp(end, "r/m") == 0) {
        *rate = (int64_t) n * 1000 / 60;
    } else {
        return "invalid rate";
    }
    return *rate > 0 ? NULL : "invalid rate";
}

static const char *
set_zone(parse_t *ps, const char **a, int n)
{
    const char *err, *colon, *name = NULL;
    zone_t     *z;
    size_t      size = 0, nlen = 0;
    int64_t     rate = 0;
    nicd_cv_t  *key;
    int         i;

    for (i = 1; i < n; i++) {
        if (strncmp(a[i], "zone=", 5) == 0) {
            name = a[i] + 5;
            colon = strchr(name, ':');
            if (colon == NULL || colon == name) {
                return nicd_conf_msg("invalid zone size \"%s\"", a[i]);
            }
            nlen = (size_t) (colon - name);
            if (nicd_conf_size(colon + 1, &size) != NULL || size == 0) {
                return nicd_conf_msg("invalid zone size \"%s\"", a[i]);
            }
            if (size < ZONE_MIN) {
                return nicd_conf_msg("zone \"%.*s\" is too small", (int) nlen,
                                     name);
            }
        } else if (strncmp(a[i], "rate=", 5) == 0) {
            if ((err = parse_rate(a[i] + 5, &rate)) != NULL) {
                return nicd_conf_msg("invalid rate \"%s\"", a[i]);
            }
        } else if (strcmp(a[i], "sync") == 0) {
            return "parameter \"sync\" needs nginx's commercial zone_sync";
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
        }
    }
    if (name == NULL) {
        return "is missing \"zone\" parameter";
    }
    if (rate == 0) {
        return "is missing \"rate\" parameter";
    }
    key = nicd_conf_cv(ps, a[0], &err);
    if (key == NULL) {
        return err;
    }
    z = zone_named(ps->conf, name, nlen);
    if (z == NULL) {
        return "out of memory";
    }
    if (z->size != 0) {
        return nicd_conf_msg("duplicate zone \"%s\"", z->name);
    }
    z->size = size;
    z->rate = rate;
    z->key = key;
    return NULL;
}

static const char *
set_limit(parse_t *ps, const char **a, int n)
{
    lr_conf_t *lc = nicd_conf_module_loc(ps);
    lr_conf_t *h = NICD_LOC_CONF(ps->conf->http, nicd_limit_req_module);
    limit_t    l = {NULL, 0, 0};
    char      *end, where[512];
    long       v;
    int        i, nodelay = 0;

    if (h->nlimits_seen++ == 0) {
        h->status_var = nicd_var_index(ps->conf, "limit_req_status", 16);
        if (h->status_var < 0) {
            return "out of memory";
        }
    }
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);

    for (i = 0; i < n; i++) {
        if (strncmp(a[i], "zone=", 5) == 0 && a[i][5] != '\0') {
            l.zone = zone_named(ps->conf, a[i] + 5, strlen(a[i] + 5));
            if (l.zone == NULL) {
                return "out of memory";
            }
            if (l.zone->where == NULL) {
                l.zone->where = nicd_conf_strdup(ps->conf, where);
            }
        } else if (strncmp(a[i], "burst=", 6) == 0
                   || strncmp(a[i], "delay=", 6) == 0) {
            v = strtol(a[i] + 6, &end, 10);
            if (end == a[i] + 6 || *end != '\0' || v <= 0 || v > 100000000L) {
                return nicd_conf_msg("invalid %.5s value \"%s\"", a[i], a[i]);
            }
            if (a[i][0] == 'b') {
                l.burst = (int64_t) v * 1000;
            } else {
                l.delay = (int64_t) v * 1000;
            }
        } else if (strcmp(a[i], "nodelay") == 0) {
            nodelay = 1;
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
        }
    }
    if (l.zone == NULL) {
        return "must have \"zone\" parameter";
    }
    if (nodelay) {
        l.delay = NODELAY;
    }
    for (i = 0; i < lc->nlimits; i++) {
        if (lc->limits[i].zone == l.zone) {
            return "is duplicate";
        }
    }
    if (lc->nlimits == MAX_LIMITS) {
        return nicd_conf_msg("is one too many: nicd takes %d a level",
                             MAX_LIMITS);
    }
    lc->limits = nicd_conf_grow(ps->conf, lc->limits, lc->nlimits, sizeof(l));
    if (lc->limits == NULL) {
        return "out of memory";
    }
    lc->limits[lc->nlimits++] = l;
    return NULL;
}

static const nicd_conf_enum_t   log_levels[] = {{"info", LOG_INFO},
                                                {"notice", LOG_NOTICE},
                                                {"warn", LOG_WARN},
                                                {"error", LOG_ERR},
                                                {NULL, 0}};
static const nicd_conf_bounds_t status_bounds = {400, 599};

#define SLOT(f) offsetof(lr_conf_t, f)

static const directive_t limit_req_directives[] = {
    {"limit_req_zone", CTX_MAIN | CTX_HTTP, 3, 4, set_zone, 0},
    {"limit_req", CTX_HSL, 1, 3, set_limit, 0},
    {"limit_req_dry_run", CTX_HSL, 1, 1, nicd_conf_slot_flag, SLOT(dry_run)},
    {"limit_req_log_level", CTX_HSL, 1, 1, nicd_conf_slot_enum, SLOT(log_level),
     0, log_levels},
    {"limit_req_status", CTX_HSL, 1, 1, nicd_conf_slot_num, SLOT(status), 0,
     &status_bounds},
    {NULL, 0, 0, 0, NULL, 0},
};

/* ---- the zones ---- */

static void
use_unlink(zone_t *z, node_t *n)
{
    if (n->prev != NULL) {
        n->prev->next = n->next;
    } else {
        z->newest = n->next;
    }
    if (n->next != NULL) {
        n->next->prev = n->prev;
    } else {
        z->oldest = n->prev;
    }
}

static void
use_front(zone_t *z, node_t *n)
{
    n->prev = NULL;
    n->next = z->newest;
    if (z->newest != NULL) {
        z->newest->prev = n;
    }
    z->newest = n;
    if (z->oldest == NULL) {
        z->oldest = n;
    }
}

static void
bucket_unlink(zone_t *z, node_t *n)
{
    node_t **pp = &z->buckets[n->hash & z->mask];

    while (*pp != n) {
        pp = &(*pp)->hnext;
    }
    *pp = n->hnext;
}

/* the state of key (locked), made when there is none (*fresh set): a
 * free one, else the one used longest ago */
static node_t *
state_of(zone_t *z, const char *key, size_t len, long now, int *fresh)
{
    uint64_t h = nicache_fnv1a64(key, len);
    size_t   keep = len < KEY_MAX ? len : KEY_MAX;
    node_t  *n;

    for (n = z->buckets[h & z->mask]; n != NULL; n = n->hnext) {
        if (n->hash == h && n->len == len && memcmp(n->key, key, keep) == 0) {
            use_unlink(z, n);
            use_front(z, n);
            *fresh = 0;
            return n;
        }
    }
    if (z->used < z->cap) {
        n = &z->nodes[z->used++];
    } else {
        n = z->oldest;
        use_unlink(z, n);
        bucket_unlink(z, n);
    }
    n->hash = h;
    n->len = len;
    memcpy(n->key, key, keep);
    n->excess = 0;
    n->last = now;
    n->hnext = z->buckets[h & z->mask];
    z->buckets[h & z->mask] = n;
    use_front(z, n);
    *fresh = 1;
    return n;
}

/* the excess n would have with one more request now (nginx's formula) */
static int64_t
excess_now(const zone_t *z, const node_t *n, long now)
{
    long    ms = now - n->last;
    int64_t e;

    if (ms < -IDLE_FORGET_MS) {
        ms = 1; /* the clock went back */
    } else if (ms < 0) {
        ms = 0;
    }
    e = n->excess - z->rate * ms / 1000 + 1000;
    return e < 0 ? 0 : e;
}

/* ---- the phase handler ---- */

static void
set_status(nicd_conn_t *c, const lr_conf_t *h, int st)
{
    (void) nicd_var_store(c, h->status_var, status_names[st],
                          strlen(status_names[st]));
}

static int
limit_req_handler(nicd_conn_t *c, const nicd_request_t *r,
                  const nicd_loc_conf_t *loc, const char *uri, size_t len)
{
    const lr_conf_t *lc = NICD_LOC_CONF(loc, nicd_limit_req_module);
    const lr_conf_t *h =
        NICD_LOC_CONF(c->w->cycle->conf->http, nicd_limit_req_module);
    nicd_buf_t key = {0};
    nicd_str_t was;
    node_t    *nodes[MAX_LIMITS];
    uint64_t   hashes[MAX_LIMITS];
    int64_t    excess[MAX_LIMITS], worst = 0, delay = 0, d;
    long       now;
    int        i, n, fresh, refused = -1, worst_i = -1;

    (void) uri;
    (void) len;
    if (lc->nlimits == 0) {
        return NICD_DECLINED;
    }
    if (c->r->resumed) {
        set_status(c, h, ST_DELAYED); /* (its values went with the wait) */
        return NICD_DECLINED;
    }
    /* once a request, whatever internal redirects follow */
    if (nicd_var_kept(c, h->status_var, &was) && was.len > 0) {
        return NICD_DECLINED;
    }
    n = lc->nlimits;
    now = nicd_worker_now_ms(c->w);
    for (i = 0; i < n; i++) {
        zone_t *z = lc->limits[i].zone;

        nodes[i] = NULL;
        if (nicd_cv_eval(c, z->key, NULL, &key) != 0) {
            nicd_buf_free(&key);
            nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
            return NICD_DONE;
        }
        if (key.len == 0) {
            continue; /* an empty key is not limited */
        }
        pthread_mutex_lock(&z->lock);
        nodes[i] = state_of(z, key.data, key.len, now, &fresh);
        hashes[i] = nodes[i]->hash;
        /* a new key's first request passes with no excess (nginx's) */
        excess[i] = fresh ? 0 : excess_now(z, nodes[i], now);
        pthread_mutex_unlock(&z->lock);
        if (excess[i] > lc->limits[i].burst) {
            refused = i;
            break;
        }
        if (worst_i < 0 || excess[i] > worst) {
            worst = excess[i];
            worst_i = i;
        }
    }
    nicd_buf_free(&key);

    if (refused >= 0) {
        log_error(lc->log_level, 0,
                  "limiting requests%s, excess: %lld.%03lld by zone \"%s\", "
                  "client: %s",
                  lc->dry_run ? ", dry run" : "",
                  (long long) (excess[refused] / 1000),
                  (long long) (excess[refused] % 1000),
                  lc->limits[refused].zone->name, nicd_client(c));
        if (lc->dry_run) {
            set_status(c, h, ST_REJECTED_DRY);
            return NICD_DECLINED;
        }
        set_status(c, h, ST_REJECTED);
        nicd_respond_error(c, lc->status, r->method == NICD_M_HEAD, NULL, 0);
        return NICD_DONE;
    }

    /* counted in every zone; the longest wait any limit asks for */
    for (i = 0; i < n; i++) {
        zone_t *z = lc->limits[i].zone;

        if (nodes[i] == NULL) {
            continue;
        }
        pthread_mutex_lock(&z->lock);
        if (nodes[i]->hash == hashes[i]) {
            /* (unless another thread gave the state to another key
             * meanwhile, a full zone's oldest: then this key is new) */
            nodes[i]->excess = excess[i];
            nodes[i]->last = now;
        }
        pthread_mutex_unlock(&z->lock);
        if (lc->limits[i].delay != NODELAY && excess[i] > lc->limits[i].delay) {
            d = (excess[i] - lc->limits[i].delay) * 1000 / z->rate;
            delay = d > delay ? d : delay;
        }
    }
    if (worst_i < 0) {
        return NICD_DECLINED; /* every key empty: not limited at all */
    }
    if (delay == 0) {
        set_status(c, h, ST_PASSED);
        return NICD_DECLINED;
    }
    log_error(lc->log_level + 1 <= LOG_INFO ? lc->log_level + 1 : LOG_INFO, 0,
              "delaying request%s, excess: %lld.%03lld by zone \"%s\", "
              "client: %s",
              lc->dry_run ? ", dry run" : "", (long long) (worst / 1000),
              (long long) (worst % 1000), lc->limits[worst_i].zone->name,
              nicd_client(c));
    if (lc->dry_run) {
        set_status(c, h, ST_DELAYED_DRY);
        return NICD_DECLINED;
    }
    set_status(c, h, ST_DELAYED);
    c->r->delay_ms = (uint32_t) (delay > 0 ? delay : 1);
    return NICD_DONE;
}

/* ---- once the configuration is read ---- */

static int
uses(const nicd_loc_conf_t *lc, const void *arg)
{
    const lr_conf_t *l = NICD_LOC_CONF(lc, nicd_limit_req_module);

    (void) arg;
    return l != NULL && l->nlimits > 0;
}

static const char *
limit_req_postconfiguration(nicd_conf_t *c)
{
    lr_conf_t *h = NICD_LOC_CONF(c->http, nicd_limit_req_module);
    size_t     nb;
    int        i;

    for (i = 0; h != NULL && i < h->nzones; i++) {
        zone_t *z = h->zones[i];

        if (z->size == 0) {
            return nicd_conf_msg("the zone \"%s\" of \"limit_req\" in %s is "
                                 "not made by any \"limit_req_zone\"",
                                 z->name, z->where != NULL ? z->where : "?");
        }
        z->cap = z->size / STATE_BYTES;
        for (nb = 1; nb < z->cap; nb <<= 1) {
        }
        z->mask = nb - 1;
        z->buckets = nicd_conf_alloc(c, nb * sizeof(node_t *));
        z->nodes = nicd_conf_alloc(c, z->cap * sizeof(node_t));
        if (z->buckets == NULL || z->nodes == NULL
            || pthread_mutex_init(&z->lock, NULL) != 0) {
            return "out of memory";
        }
    }
    return nicd_conf_any_level(c, uses, NULL)
               ? nicd_phase_add(c, NICD_PHASE_PREACCESS, limit_req_handler)
               : NULL;
}

/* $limit_req_status: what the handler stored (empty where no limit ran) */
static const nicd_var_t limit_req_vars[] = {
    {"limit_req_status", nicd_var_empty, 0, NULL},
    {NULL, NULL, 0, NULL},
};

nicd_module_t nicd_limit_req_module = {
    .name = "limit_req",
    .directives = limit_req_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = limit_req_postconfiguration,
    .variables = limit_req_vars,
};

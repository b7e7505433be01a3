/*
 * The Lua content handler (docs/lua.md): "location /p/ {
 * lua_content_handler FILE; }" runs the function FILE returns for each
 * request of the location, with LuaJIT from Debian.
 *
 * Each worker thread has its own lua_State, made with the scripts loaded
 * when the thread starts (a HUP's new configuration starts new workers,
 * so the scripts are loaded again; a state that failed to load is tried
 * again on the next request); the configuration itself compiles every
 * script when it is read, so a script that does not parse fails start-up
 * and "nicd -t" with its name.
 *
 * A handler runs on the worker's thread: the time it may take is bounded
 * by lua_time_limit (a count hook every 1000 VM instructions looks at the
 * clock and raises an error).  LuaJIT calls no hook from compiled code, so
 * the states run LuaJIT's interpreter only (the JIT off); a hook cannot
 * stop a single long C call either (a string.rep of a gigabyte runs out
 * of memory instead, which is an error too).  Any error is a 500 and a log
 * line naming the script; the worker goes on.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "server/http/filter.h"
#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "util/clock.h"
#include "server/http/phases.h"

/* the module's settings of a location: its script and its place in
 * nicd_conf_t.lua_locs (the workers' states keep one function a script) */
typedef struct {
    char *file; /* NULL: none here */
    int   idx;
} lua_conf_t;

nicd_module_t nicd_lua_module;

static void *
create_conf(nicd_conf_t *c)
{
    lua_conf_t *lc = nicd_conf_alloc(c, sizeof(*lc));

    if (lc != NULL) {
        lc->idx = -1;
    }
    return lc;
}

#if HAVE_LUAJIT

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>

#define HOOK_EVERY 1000 /* VM instructions between clock checks */

static const lua_conf_t *
lua_of(const nicd_loc_conf_t *lc)
{
    return NICD_LOC_CONF(lc, nicd_lua_module);
}

typedef struct {
    lua_State          *L;
    const nicd_cycle_t *cycle; /* the configuration it was loaded for */
    int                *refs;  /* the handler function by location */
    uint64_t            deadline_ns;
    int                 expired;
} lua_worker_t;

/* the state's worker record, kept in the registry */
static lua_worker_t *
worker_of(lua_State *L)
{
    lua_worker_t *lw;

    lua_getfield(L, LUA_REGISTRYINDEX, "nicd.worker");
    lw = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return lw;
}

static void
hook(lua_State *L, lua_Debug *ar)
{
    lua_worker_t *lw = worker_of(L);

    (void) ar;
    if (lw != NULL && nicache_now_ns() > lw->deadline_ns) {
        lw->expired = 1;
        luaL_error(L, "lua_time_limit exceeded");
    }
}

static int
lua_check(const char *file, char *err, size_t len)
{
    lua_State *L = luaL_newstate();
    int        rc = 0;

    if (L == NULL) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    if (luaL_loadfile(L, file) != 0) {
        snprintf(err, len, "%s", lua_tostring(L, -1));
        rc = -1;
    }
    lua_close(L);
    return rc;
}

static void
worker_close(lua_worker_t *lw)
{
    if (lw->L != NULL) {
        lua_close(lw->L);
    }
    free(lw->refs);
    lw->L = NULL;
    lw->refs = NULL;
    lw->cycle = NULL;
}

static void
lua_worker_free(nicd_worker_t *w)
{
    lua_worker_t *lw = NICD_WORKER_CTX(w, nicd_lua_module);

    if (lw != NULL) {
        worker_close(lw);
        free(lw);
        NICD_WORKER_CTX(w, nicd_lua_module) = NULL;
    }
}

/*
 * Load every Lua location's script of cycle into a new state: each must
 * return a function.  0, or -1 after logging (the state is closed).
 */
static int
worker_load(lua_worker_t *lw, const nicd_cycle_t *cy)
{
    const nicd_conf_t *cf = cy->conf;
    int                i;

    worker_close(lw);
    lw->L = luaL_newstate();
    lw->refs = calloc((size_t) cf->nlua + 1, sizeof(int));
    if (lw->L == NULL || lw->refs == NULL) {
        log_error(LOG_CRIT, 0, "lua: out of memory");
        worker_close(lw);
        return -1;
    }
    luaL_openlibs(lw->L);
    luaJIT_setmode(lw->L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    lua_pushlightuserdata(lw->L, lw);
    lua_setfield(lw->L, LUA_REGISTRYINDEX, "nicd.worker");
    /* what scripts may want to know of the server */
    lua_newtable(lw->L);
    lua_pushstring(lw->L, cf->http->root);
    lua_setfield(lw->L, -2, "root");
    lua_setglobal(lw->L, "nicd");
    for (i = 0; i < cf->nlua; i++) {
        const char *file = lua_of(cf->lua_locs[i])->file;

        lw->refs[i] = LUA_NOREF;
        lw->deadline_ns =
            nicache_now_ns() + (uint64_t) cf->lua_time_limit * 1000000u;
        lua_sethook(lw->L, hook, LUA_MASKCOUNT, HOOK_EVERY);
        if (luaL_loadfile(lw->L, file) != 0 || lua_pcall(lw->L, 0, 1, 0) != 0) {
            log_error(LOG_ERR, 0, "lua: %s: %s", file, lua_tostring(lw->L, -1));
            worker_close(lw);
            return -1;
        }
        if (!lua_isfunction(lw->L, -1)) {
            log_error(LOG_ERR, 0, "lua: %s does not return a function", file);
            worker_close(lw);
            return -1;
        }
        lw->refs[i] = luaL_ref(lw->L, LUA_REGISTRYINDEX);
    }
    lua_sethook(lw->L, NULL, 0, 0);
    lw->cycle = cy;
    return 0;
}

static void
push_request(lua_State *L, nicd_conn_t *c, const nicd_request_t *r)
{
    char name[64];
    int  i, k;

    lua_createtable(L, 0, 8);
    lua_pushstring(L, nicd_http_method_name(r->method));
    lua_setfield(L, -2, "method");
    lua_pushlstring(L, r->path.p, r->path.len);
    lua_setfield(L, -2, "path");
    lua_pushlstring(L, r->query.p != NULL ? r->query.p : "", r->query.len);
    lua_setfield(L, -2, "query");
    lua_pushlstring(L, r->path.p, r->path.len);
    if (r->query.len > 0) {
        lua_pushliteral(L, "?");
        lua_pushlstring(L, r->query.p, r->query.len);
        lua_concat(L, 3);
    }
    lua_setfield(L, -2, "target");
    lua_pushstring(L, nicd_client(c));
    lua_setfield(L, -2, "remote_addr");
    /* headers by lower-case name; repeated fields joined with ", " */
    lua_createtable(L, 0, r->nheaders);
    for (i = 0; i < r->nheaders; i++) {
        size_t n =
            r->hname[i].len < sizeof(name) ? r->hname[i].len : sizeof(name) - 1;

        for (k = 0; k < (int) n; k++) {
            char ch = r->hname[i].p[k];

            name[k] = ch >= 'A' && ch <= 'Z' ? (char) (ch + 32) : ch;
        }
        name[n] = '\0';
        lua_getfield(L, -1, name);
        if (lua_isstring(L, -1)) {
            lua_pushliteral(L, ", ");
            lua_pushlstring(L, r->hvalue[i].p, r->hvalue[i].len);
            lua_concat(L, 3);
        } else {
            lua_pop(L, 1);
            lua_pushlstring(L, r->hvalue[i].p, r->hvalue[i].len);
        }
        lua_setfield(L, -2, name);
    }
    lua_setfield(L, -2, "headers");
    if (r->body.p != NULL) {
        lua_pushlstring(L, r->body.p, r->body.len);
        lua_setfield(L, -2, "body");
    }
}

/* a header name or value a response can carry as is */
static int
header_ok(const char *s, size_t n, int name)
{
    size_t i;

    if (name && n == 0) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char) s[i];

        if (ch == '\r' || ch == '\n' || ch == '\0'
            || (name && (ch <= ' ' || ch == ':'))) {
            return 0;
        }
    }
    return 1;
}

/* what the handler's headers say of its body */
typedef struct {
    const char *type; /* its Content-Type (text/html unless it gives one) */
    size_t      tlen;
    int         encoded; /* it gave a Content-Encoding */
} lua_head_t;

/*
 * The headers table at stack -2 (under the body): each pair checked (and
 * its type and encoding noted in h), and sent through c unless c is NULL
 * (the framing's own are left out; Content-Type goes with the charset
 * module's word, nicd_resp_content_type).  0, or -1 at the first pair
 * that is not a valid name = value.
 */
static int
headers(lua_State *L, nicd_conn_t *c, lua_head_t *h)
{
    const char *n, *v;
    size_t      nl, vl;

    for (lua_pushnil(L); lua_next(L, -3) != 0; lua_pop(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING || !lua_isstring(L, -1)) {
            lua_pop(L, 2);
            return -1;
        }
        n = lua_tolstring(L, -2, &nl);
        lua_pushvalue(L, -1); /* tolstring may convert a number in place */
        v = lua_tolstring(L, -1, &vl);
        lua_pop(L, 1);
        if (!header_ok(n, nl, 1) || !header_ok(v, vl, 0)) {
            lua_pop(L, 2);
            return -1;
        }
        if ((nl == 14 && strncasecmp(n, "Content-Length", 14) == 0)
            || (nl == 10 && strncasecmp(n, "Connection", 10) == 0)
            || (nl == 17 && strncasecmp(n, "Transfer-Encoding", 17) == 0)) {
            continue; /* the framing is the server's */
        }
        if (nl == 12 && strncasecmp(n, "Content-Type", 12) == 0
            && lua_type(L, -1) == LUA_TSTRING) {
            h->type = v; /* the table holds the string while it answers */
            h->tlen = vl;
            continue;
        }
        h->encoded |= nl == 16 && strncasecmp(n, "Content-Encoding", 16) == 0;
        if (c != NULL) {
            nicd_resp_header(c, n, nl, v, vl);
        }
    }
    return 0;
}

/* the handler's answer, or a 500: the values are at stack -3, -2, -1 */
static int
respond(nicd_conn_t *c, const nicd_request_t *r, lua_State *L, const char *file)
{
    int         head = r->method == NICD_M_HEAD, status;
    size_t      blen = 0;
    const char *body = NULL;
    lua_head_t  h = {"text/html", 9, 0};
    nicd_buf_t  z = {0};

    if (!lua_isnumber(L, -3) || lua_tointeger(L, -3) < 100
        || lua_tointeger(L, -3) > 599
        || (!lua_isnil(L, -2) && !lua_istable(L, -2))
        || (!lua_isnil(L, -1) && !lua_isstring(L, -1))) {
        log_error(LOG_ERR, 0,
                  "lua: %s: the handler must return status (100-599), "
                  "headers (a table or nil), body (a string or nil), "
                  "client: %s",
                  file, nicd_client(c));
        return -1;
    }
    status = (int) lua_tointeger(L, -3);
    if (lua_isstring(L, -1)) {
        body = lua_tolstring(L, -1, &blen);
    }
    /* every header is checked before the first is sent */
    if (lua_istable(L, -2) && headers(L, NULL, &h) != 0) {
        log_error(LOG_ERR, 0,
                  "lua: %s: a header is not a valid name = value pair "
                  "(strings; no CR, LF or NUL), client: %s",
                  file, nicd_client(c));
        return -1;
    }
    /* the body filters (charset, gzip), as nginx's run on any handler's;
     * not on a body the handler encoded itself */
    if (body != NULL && !h.encoded) {
        body = nicd_body_filter(c, h.type, h.tlen, body, &blen, &z);
    }
    nicd_resp_start(c, status);
    nicd_resp_content_type(c, h.type, h.tlen);
    if (c->r->body_gzipped) {
        NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
    }
    if (lua_istable(L, -2)) {
        (void) headers(L, c, &h);
    }
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) blen);
    nicd_resp_end_headers(c);
    if (!head && blen > 0) {
        nicd_resp_body_mem(c, body, blen);
    }
    nicd_buf_free(&z);
    nicd_resp_finish(c, status);
    return 0;
}

static void
lua_worker_init(nicd_worker_t *w)
{
    const nicd_conf_t *cf = w->cycle->conf;

    if (cf->nlua == 0) {
        return;
    }
    lua_worker_t *lw = NICD_WORKER_CTX(w, nicd_lua_module);

    if (lw == NULL && (lw = calloc(1, sizeof(lua_worker_t))) == NULL) {
        return; /* the first request tries again */
    }
    NICD_WORKER_CTX(w, nicd_lua_module) = lw;
    (void) worker_load(lw, w->cycle); /* a failure is logged */
}

static void
nicd_lua_content(nicd_conn_t *c, const nicd_request_t *r,
                 const nicd_loc_conf_t *lc)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    const char        *file = lua_of(lc)->file;
    int                loc = lua_of(lc)->idx;
    int                head = r->method == NICD_M_HEAD;
    lua_worker_t      *lw = NICD_WORKER_CTX(c->w, nicd_lua_module);
    lua_State         *L;

    if (lw == NULL) {
        lw = NICD_WORKER_CTX(c->w, nicd_lua_module) =
            calloc(1, sizeof(lua_worker_t));
        if (lw == NULL) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return;
        }
    }
    if (lw->cycle != c->w->cycle && worker_load(lw, c->w->cycle) != 0) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    L = lw->L;
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->refs[loc]);
    push_request(L, c, r);
    lw->expired = 0;
    lw->deadline_ns =
        nicache_now_ns() + (uint64_t) cf->lua_time_limit * 1000000u;
    lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_EVERY);
    if (lua_pcall(L, 1, 3, 0) != 0) {
        lua_sethook(L, NULL, 0, 0);
        log_error(LOG_ERR, 0, "lua: %s: %s, client: %s", file,
                  lua_isstring(L, -1) ? lua_tostring(L, -1) : "(an error)",
                  nicd_client(c));
        lua_settop(L, 0);
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    lua_sethook(L, NULL, 0, 0);
    if (respond(c, r, L, file) != 0) {
        nicd_respond_error(c, 500, head, NULL, 0);
    }
    lua_settop(L, 0);
}

#else /* !HAVE_LUAJIT */

static int
lua_check(const char *file, char *err, size_t len)
{
    (void) file;
    snprintf(err, len, "nicd was built without LuaJIT (libluajit-5.1-dev)");
    return -1;
}

void
nicd_lua_content(nicd_conn_t *c, const nicd_request_t *r,
                 const nicd_loc_conf_t *lc)
{
    (void) lc;
    nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
}

static void
lua_worker_init(nicd_worker_t *w)
{
    (void) w;
}

static void
lua_worker_free(nicd_worker_t *w)
{
    (void) w;
}

#endif

/* "lua_content_handler FILE;": the script compiles now, so that one that
 * does not parse fails start-up and "nicd -t" with its name */
static const char *
set_lua_handler(parse_t *ps, const char **a, int n)
{
    lua_conf_t       *lc = nicd_conf_module_loc(ps);
    char              err[512];
    const char       *msg;
    nicd_loc_conf_t **all;

    (void) n;
    if (lua_check(a[0], err, sizeof(err)) != 0) {
        return nicd_conf_msg("%s", err);
    }
    if ((msg = nicd_conf_handler(ps, nicd_lua_content, ps->d->name)) != NULL) {
        return msg;
    }
    all = nicd_conf_grow(ps->conf, ps->conf->lua_locs, ps->conf->nlua,
                         sizeof(*all));
    if (all == NULL || (lc->file = nicd_conf_strdup(ps->conf, a[0])) == NULL) {
        return "out of memory";
    }
    lc->idx = ps->conf->nlua;
    all[ps->conf->nlua++] = ps->loc;
    ps->conf->lua_locs = all;
    /* it reads the body, of any method (the engine's to know) */
    ps->loc->handler_body = 1;
    ps->conf->body_handlers++;
    return NULL;
}

static const char *
set_lua_time_limit(parse_t *ps, const char **a, int n)
{
    (void) n;
    if (nicd_conf_time(a[0], &ps->conf->lua_time_limit) != NULL
        || ps->conf->lua_time_limit <= 0) {
        return nicd_conf_msg("invalid time \"%s\"", a[0]);
    }
    return NULL;
}

static const directive_t lua_directives[] = {
    {"lua_content_handler", CTX_LOC, 1, 1, set_lua_handler, 0},
    {"lua_time_limit", CTX_MAIN | CTX_HTTP, 1, 1, set_lua_time_limit, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_lua_module = {
    .name = "lua",
    .directives = lua_directives,
    .create_loc_conf = create_conf,
    .worker_init = lua_worker_init,
    .worker_free = lua_worker_free,
};

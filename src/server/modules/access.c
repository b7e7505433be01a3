/*
 * Who may have a location (nginx's access and auth_basic modules, with
 * "satisfy all"):
 *
 *   allow ADDR[/BITS] | unix: | all;  deny ADDR[/BITS] | unix: | all;
 *       the first rule that matches the client's address decides; none
 *       matching lets it through; a denied client gets 403 and a log line.
 *   auth_basic REALM | off;  auth_basic_user_file FILE;
 *       a client must send Authorization: Basic with a user and password
 *       of FILE, else 401 with WWW-Authenticate.  FILE is read on each
 *       request, as nginx does (a changed file needs no reload); it is
 *       htpasswd's: "user:hash" lines, # comments; hashes as Debian's
 *       nginx takes them: {PLAIN}, {SHA} (base64 SHA-1), {SSHA}, $apr1$
 *       (Apache's MD5, computed here), and whatever crypt(3) knows
 *       (libxcrypt: DES, $1$, $5$, $6$, bcrypt $2b$/$2y$, yescrypt $y$).
 *       A file that cannot be read is a 500 and a log line.
 */

#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "util/cidr.h"
#include "server/conf/directive.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

typedef struct {
    int            deny;
    int            all;
    int            unix_client; /* "unix:": a UNIX-domain socket's client */
    nicache_cidr_t block;       /* unless all or unix: */
} rule_t;

/* the module's settings of a level: each taken whole from the enclosing
 * level where a level has none */
typedef struct {
    rule_t          *rules; /* allow and deny, in order */
    int              nrules;
    char            *realm; /* auth_basic; NULL: unset, "": off */
    char            *user_file;
    const nicd_cv_t *user_cv;    /* a user file named with variables */
    char            *user_dir;   /* where a relative name is (the main
                                  configuration file's directory) */
    long             auth_delay; /* ms a 401 waits (NICD_UNSET: unset) */
} access_conf_t;

nicd_module_t nicd_access_module;

static void *
create_conf(nicd_conf_t *c)
{
    access_conf_t *ac = nicd_conf_alloc(c, sizeof(access_conf_t));

    if (ac != NULL) {
        ac->auth_delay = NICD_UNSET;
    }
    return ac;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const access_conf_t *p = prev;
    access_conf_t       *ac = conf;

    (void) c;
    NICD_MERGE_LIST(ac, p, rules, nrules);
    NICD_MERGE_PTR(ac, p, realm, NULL);
    if (ac->user_file == NULL && p != NULL) {
        ac->user_file = p->user_file;
        ac->user_cv = p->user_cv;
        ac->user_dir = p->user_dir;
    }
    NICD_MERGE(ac, p, auth_delay, 0);
    return NULL;
}

static const char *
set_rule(parse_t *ps, const char **a, int n)
{
    access_conf_t *l = nicd_conf_module_loc(ps);
    rule_t         r;

    (void) n;
    memset(&r, 0, sizeof(r));
    r.deny = strcmp(ps->d->name, "deny") == 0;
    r.all = strcmp(a[0], "all") == 0;
    r.unix_client = strcmp(a[0], "unix:") == 0;
    if (!r.all && !r.unix_client && nicache_cidr_parse(a[0], &r.block) != 0) {
        return nicd_conf_msg("invalid parameter \"%s\"", a[0]);
    }
    l->rules = nicd_conf_grow(ps->conf, l->rules, l->nrules, sizeof(r));
    if (l->rules == NULL) {
        return "out of memory";
    }
    l->rules[l->nrules++] = r;
    return NULL;
}

static const char *
set_auth_basic(parse_t *ps, const char **a, int n)
{
    access_conf_t *l = nicd_conf_module_loc(ps);

    (void) n;
    /* "off" switches an inherited realm off: an empty string, not NULL */
    l->realm = nicd_conf_strdup(ps->conf, strcmp(a[0], "off") == 0 ? "" : a[0]);
    return l->realm == NULL ? "out of memory" : NULL;
}

static const char *
set_user_file(parse_t *ps, const char **a, int n)
{
    access_conf_t *l = nicd_conf_module_loc(ps);

    const char *err, *text;
    size_t      len;
    char        full[4096];

    (void) n;
    l->user_dir = nicd_conf_strdup(ps->conf, ps->dir != NULL ? ps->dir : ".");
    if ((l->user_cv = nicd_conf_cv(ps, a[0], &err)) == NULL) {
        return err;
    }
    if (nicd_cv_literal(l->user_cv, &text, &len)) {
        l->user_cv = NULL;
        /* relative: to the configuration's directory, as nginx's prefix */
        snprintf(full, sizeof(full), "%s%s%s",
                 a[0][0] == '/' ? "" : l->user_dir, a[0][0] == '/' ? "" : "/",
                 a[0]);
        l->user_file = nicd_conf_strdup(ps->conf, full);
    } else {
        l->user_file = nicd_conf_strdup(ps->conf, a[0]); /* its template */
    }
    return l->user_file == NULL || l->user_dir == NULL ? "out of memory" : NULL;
}

/* 1 when rules let the client (its address as text) through */
static int
allowed(const access_conf_t *lc, const char *addr)
{
    uint8_t bin[16];
    int     i, family = nicache_addr_parse(addr, strlen(addr), bin);

    /* (a UNIX-domain socket's client, "unix:", is no address: "unix:"
     * and "all" match it) */
    for (i = 0; i < lc->nrules; i++) {
        const rule_t *r = &lc->rules[i];

        if (r->all || (r->unix_client && strcmp(addr, "unix:") == 0)
            || (family != 0 && !r->unix_client
                && nicache_cidr_match(&r->block, family, bin))) {
            return !r->deny;
        }
    }
    return 1;
}

/* Apache's MD5 crypt ("$apr1$salt$hash": md5crypt with its own magic) */
static int
apr1(const char *pw, const char *setting, char *out, size_t outlen)
{
    static const char itoa64[] =
        "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    static const char magic[] = "$apr1$";
    unsigned char     fin[16];
    const char       *salt = setting + 6, *e;
    size_t            pl = strlen(pw), sl, i, k;
    EVP_MD_CTX       *ctx = EVP_MD_CTX_new();
    unsigned long     v;
    char             *p;

    if (ctx == NULL) {
        return -1;
    }
    e = strchr(salt, '$');
    sl = e != NULL ? (size_t) (e - salt) : strlen(salt);
    if (sl > 8) {
        sl = 8;
    }
    /* pw salt pw */
    EVP_DigestInit_ex(ctx, EVP_md5(), NULL);
    EVP_DigestUpdate(ctx, pw, pl);
    EVP_DigestUpdate(ctx, salt, sl);
    EVP_DigestUpdate(ctx, pw, pl);
    EVP_DigestFinal_ex(ctx, fin, NULL);
    /* pw magic salt, the above for pw's length, bits of the length */
    EVP_DigestInit_ex(ctx, EVP_md5(), NULL);
    EVP_DigestUpdate(ctx, pw, pl);
    EVP_DigestUpdate(ctx, magic, 6);
    EVP_DigestUpdate(ctx, salt, sl);
    for (k = pl; k > 0; k -= k > 16 ? 16 : k) {
        EVP_DigestUpdate(ctx, fin, k > 16 ? 16 : k);
    }
    for (k = pl; k != 0; k >>= 1) {
        EVP_DigestUpdate(ctx, (k & 1) ? "" : pw, 1);
    }
    EVP_DigestFinal_ex(ctx, fin, NULL);
    /* a thousand rounds, to be slow */
    for (i = 0; i < 1000; i++) {
        EVP_DigestInit_ex(ctx, EVP_md5(), NULL);
        if (i & 1) {
            EVP_DigestUpdate(ctx, pw, pl);
        } else {
            EVP_DigestUpdate(ctx, fin, 16);
        }
        if (i % 3) {
            EVP_DigestUpdate(ctx, salt, sl);
        }
        if (i % 7) {
            EVP_DigestUpdate(ctx, pw, pl);
        }
        if (i & 1) {
            EVP_DigestUpdate(ctx, fin, 16);
        } else {
            EVP_DigestUpdate(ctx, pw, pl);
        }
        EVP_DigestFinal_ex(ctx, fin, NULL);
    }
    EVP_MD_CTX_free(ctx);
    if (outlen < 6 + sl + 1 + 22 + 1) {
        return -1;
    }
    p = out + snprintf(out, outlen, "%s%.*s$", magic, (int) sl, salt);
    for (i = 0; i < 5; i++) {
        v = ((unsigned long) fin[i] << 16) | ((unsigned long) fin[i + 6] << 8)
            | fin[i == 4 ? 5 : i + 12];
        for (k = 0; k < 4; k++, v >>= 6) {
            *p++ = itoa64[v & 0x3f];
        }
    }
    v = fin[11];
    for (k = 0; k < 2; k++, v >>= 6) {
        *p++ = itoa64[v & 0x3f];
    }
    *p = '\0';
    return 0;
}

/* {SHA} and {SSHA}: base64 of SHA-1(pw [salt]) [salt] */
static int
sha_match(const char *pw, const char *b64, int salted)
{
    unsigned char raw[128], md[20];
    size_t        n = strlen(b64), len;
    EVP_MD_CTX   *ctx;
    int           dec, ok;

    if (n > 160) {
        return 0;
    }
    dec = nicd_base64_decode(raw, b64, n);
    if (dec < 20) {
        return 0;
    }
    len = (size_t) dec;
    if ((!salted && len != 20) || len < 20) {
        return 0;
    }
    ctx = EVP_MD_CTX_new();
    if (ctx == NULL) {
        return 0;
    }
    EVP_DigestInit_ex(ctx, EVP_sha1(), NULL);
    EVP_DigestUpdate(ctx, pw, strlen(pw));
    if (salted) {
        EVP_DigestUpdate(ctx, raw + 20, len - 20);
    }
    EVP_DigestFinal_ex(ctx, md, NULL);
    EVP_MD_CTX_free(ctx);
    ok = CRYPTO_memcmp(md, raw, 20) == 0;
    return ok;
}

/* does pw match the htpasswd hash? */
static int
password_ok(const char *pw, const char *hash)
{
    struct crypt_data *cd;
    char               buf[128];
    const char        *got;
    int                ok;

    if (strncmp(hash, "{PLAIN}", 7) == 0) {
        return strlen(hash + 7) == strlen(pw)
               && CRYPTO_memcmp(hash + 7, pw, strlen(pw)) == 0;
    }
    if (strncmp(hash, "{SHA}", 5) == 0) {
        return sha_match(pw, hash + 5, 0);
    }
    if (strncmp(hash, "{SSHA}", 6) == 0) {
        return sha_match(pw, hash + 6, 1);
    }
    if (strncmp(hash, "$apr1$", 6) == 0) {
        return apr1(pw, hash, buf, sizeof(buf)) == 0
               && strlen(buf) == strlen(hash)
               && CRYPTO_memcmp(buf, hash, strlen(hash)) == 0;
    }
    cd = calloc(1, sizeof(*cd));
    if (cd == NULL) {
        return 0;
    }
    got = crypt_r(pw, hash, cd);
    ok = got != NULL && got[0] != '*' && strlen(got) == strlen(hash)
         && CRYPTO_memcmp(got, hash, strlen(hash)) == 0;
    free(cd);
    return ok;
}

static void
unauthorized(nicd_conn_t *c, const nicd_request_t *r, const access_conf_t *lc)
{
    char hdr[512];
    int  n;

    if (lc->auth_delay > 0 && !c->r->resumed) {
        /* auth_delay: the 401 after a wait, so that a guess costs time
         * (the request is answered again, from the start, then) */
        c->r->delay_ms = (uint32_t) lc->auth_delay;
        return;
    }
    n = snprintf(hdr, sizeof(hdr), "Basic realm=\"%s\"", lc->realm);
    if (n < 0 || (size_t) n >= sizeof(hdr)) {
        n = snprintf(hdr, sizeof(hdr), "Basic realm=\"\"");
    }
    nicd_respond_error_hdr(c, 401, r->method == NICD_M_HEAD, "WWW-Authenticate",
                           hdr, (size_t) n);
}

/* 0: the user and password are in the file; 1: not; -1: it cannot be
 * read (logged); -2: it is not there (logged: a 403, as nginx's) */
static int
check_file(nicd_conn_t *c, const access_conf_t *lc, const char *user,
           const char *pw)
{
    FILE      *f;
    char       line[1024], *hash, *end;
    size_t     ulen = strlen(user);
    int        rc = 1, found = 0;
    nicd_buf_t name = {0};

    if (lc->user_cv != NULL) {
        /* its name for this request (relative: to the configuration's
         * directory) */
        if (nicd_cv_eval(c, lc->user_cv, NULL, &name) != 0 || name.len == 0
            || memchr(name.data, '\0', name.len) != NULL) {
            nicd_buf_free(&name);
            return -1;
        }
        if (name.data[0] != '/') {
            nicd_buf_t full = {0};

            nicd_buf_addf(&full, "%s/%s", lc->user_dir, name.data);
            nicd_buf_free(&name);
            name = full;
            if (nicd_buf_failed(&name)) {
                return -1;
            }
        }
    }
    f = fopen(lc->user_cv != NULL ? name.data : lc->user_file, "re");
    if (f == NULL) {
        rc = errno == ENOENT ? -2 : -1;
        log_error(rc == -2 ? LOG_ERR : LOG_CRIT, errno,
                  "open() \"%s\" failed, client: %s",
                  lc->user_cv != NULL ? name.data : lc->user_file,
                  nicd_client(c));
        nicd_buf_free(&name);
        return rc;
    }
    nicd_buf_free(&name);
    while (fgets(line, sizeof(line), f) != NULL) {
        if (line[0] == '#' || strncmp(line, user, ulen) != 0
            || line[ulen] != ':') {
            continue;
        }
        hash = line + ulen + 1;
        end = strpbrk(hash, ":\r\n");
        if (end != NULL) {
            *end = '\0';
        }
        found = 1;
        rc = password_ok(pw, hash) ? 0 : 1;
        break;
    }
    fclose(f);
    if (!found) {
        log_error(LOG_ERR, 0, "user \"%s\" was not found in \"%s\", client: %s",
                  user, lc->user_file, nicd_client(c));
    } else if (rc != 0) {
        log_error(LOG_ERR, 0, "user \"%s\": password mismatch, client: %s",
                  user, nicd_client(c));
    }
    return rc;
}

/* the access phase: NICD_DONE when it answered (403, 401, 500),
 * NICD_DECLINED to go on */
static int
access_handler(nicd_conn_t *c, const nicd_request_t *r,
               const nicd_loc_conf_t *loc, const char *uri, size_t len)
{
    const access_conf_t *lc = NICD_LOC_CONF(loc, nicd_access_module);
    char                 buf[768];
    const char          *pw;
    int                  head = r->method == NICD_M_HEAD;

    (void) uri;
    (void) len;
    if (lc->nrules > 0 && !allowed(lc, nicd_client(c))) {
        log_error(LOG_ERR, 0, "access forbidden by rule, client: %s",
                  nicd_client(c));
        nicd_respond_error(c, 403, head, NULL, 0);
        return NICD_DONE;
    }
    if (lc->realm == NULL || lc->realm[0] == '\0') {
        return NICD_DECLINED;
    }
    if (lc->user_file == NULL) {
        log_error(LOG_ERR, 0,
                  "auth_basic without auth_basic_user_file, "
                  "client: %s",
                  nicd_client(c));
        nicd_respond_error(c, 500, head, NULL, 0);
        return NICD_DONE;
    }
    pw = nicd_basic_credentials(&r->hdr[NICD_HDR_AUTHORIZATION], buf,
                                sizeof(buf));
    if (pw == NULL) {
        unauthorized(c, r, lc);
        return NICD_DONE;
    }
    switch (check_file(c, lc, buf, pw)) {
    case 0: return NICD_DECLINED;
    case 1: unauthorized(c, r, lc); return NICD_DONE;
    case -2: nicd_respond_error(c, 403, head, NULL, 0); return NICD_DONE;
    }
    nicd_respond_error(c, 500, head, NULL, 0);
    return NICD_DONE;
}

static const directive_t nicd_access_directives[] = {
    {"allow", CTX_HSL | CTX_LMT, 1, 1, set_rule, 0},
    {"deny", CTX_HSL | CTX_LMT, 1, 1, set_rule, 0},
    {"auth_basic", CTX_HSL | CTX_LMT, 1, 1, set_auth_basic, 0},
    {"auth_basic_user_file", CTX_HSL | CTX_LMT, 1, 1, set_user_file, 0},
    {"auth_delay", CTX_HTTP | CTX_SRV | CTX_LOC, 1, 1, nicd_conf_slot_msec,
     offsetof(access_conf_t, auth_delay)},
    {NULL, 0, 0, 0, NULL, 0},
};

static int
uses(const nicd_loc_conf_t *lc, const void *arg)
{
    const access_conf_t *ac = NICD_LOC_CONF(lc, nicd_access_module);

    (void) arg;
    return ac->nrules > 0 || (ac->realm != NULL && ac->realm[0] != '\0');
}

static const char *
access_postconfiguration(nicd_conf_t *c)
{
    return nicd_conf_any_level(c, uses, NULL)
               ? nicd_phase_add(c, NICD_PHASE_ACCESS, access_handler)
               : NULL;
}

nicd_module_t nicd_access_module = {
    .name = "access",
    .directives = nicd_access_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = access_postconfiguration,
};

/*
 * What a module needs to own directives (nginx's ngx_command_t and
 * ngx_conf_set_*_slot): the contexts, the directive entry, the reader's
 * state a setter sees, and the configuration's allocator.  Modules list
 * their directives in a table ending with a NULL name; conf.c reads
 * every table and knows no module's directive by name.
 */

#ifndef NICD_DIRECTIVE_H
#define NICD_DIRECTIVE_H

#include <stddef.h>

#include "server/conf/conf.h"

#define MAX_ARGS 16

/* contexts a directive may stand in */
#define CTX_MAIN 0x01 /* the top level and events {} */
#define CTX_HTTP 0x02 /* http {} (and the top level) */
#define CTX_SRV  0x04 /* server {} (and the top level: its implicit one) */
#define CTX_LOC  0x08 /* location {} */
#define CTX_ONE  0x10 /* one value for every server, wherever written */
#define CTX_IF   0x20 /* if (...) {}: the rewrite module's directives */
/* a block of lines that are not directives ("map ... {", "types {"): its
 * setter sets ps->lines, called with the words of each line */
#define CTX_LINES 0x40
#define CTX_LMT   0x80 /* limit_except {} (http/limit_except.c) */
#define CTX_TOP   (CTX_MAIN | CTX_HTTP | CTX_SRV)
#define CTX_HSL   (CTX_HTTP | CTX_SRV | CTX_LOC)

typedef struct parse_s     parse_t;
typedef struct directive_s directive_t;

typedef const char *(*set_pt)(parse_t *ps, const char **a, int n);

/* a directive: its contexts, argument counts and setter; a generic
 * setter (slot_*) writes the field at offset of the level's settings
 * (the location's with CTX_LOC among its contexts, else nicd_conf_t), as
 * nginx's ngx_conf_set_*_slot */
struct directive_s {
    const char *name;
    unsigned    ctx;
    int         min, max; /* argument counts */
    set_pt      set;
    size_t      offset;
    unsigned    block; /* a block directive: the context of its block, whose
                          directives go to ps->loc as its setter left it */
    const void *post;  /* what a generic setter needs more (slot_enum: its
                          names and values) */
};

/* nicd_conf_slot_num's post: the bounds of its value */
typedef struct {
    long min, max;
} nicd_conf_bounds_t;

/* slot_enum's table: names and their values, ending with a NULL name */
typedef struct {
    const char *name;
    int         value;
} nicd_conf_enum_t;

/* the tokenizer's state, and where the directive at hand goes */
struct parse_s {
    nicd_conf_t                *conf;
    const char                 *name; /* file name for messages */
    const char                 *dir;  /* directory for include */
    const char                 *p;
    const char                 *end;
    int                         line;
    char                       *err;
    size_t                      errlen;
    int                         depth;
    char                       *words[MAX_ARGS + 2];
    int                         nwords;
    unsigned                    ctx; /* CTX_* of the block at hand */
    nicd_server_conf_t         *srv; /* the server {} at hand, or NULL */
    nicd_loc_conf_t            *loc; /* the settings directives at hand go to */
    const directive_t          *d;   /* the directive being set */
    const struct nicd_module_s *module;   /* ... and its module */
    int                         override; /* -g: a setting may replace one */
    set_pt                      lines;    /* a CTX_LINES block's line handler */
    void                       *lines_data; /* ... and what it fills */
};

/* the configuration's arena (freed with it), for settings */
void *nicd_conf_alloc(nicd_conf_t *c, size_t n);
char *nicd_conf_strdup(nicd_conf_t *c, const char *s);
/* the object called name (len bytes) among the *n of list, each of
 * which begins with its name (a char *: the zones of limit_req and
 * limit_conn), made (size bytes, zeroed, the name set) when there is
 * none; NULL when out of memory */
void *nicd_conf_named_object(nicd_conf_t *c, void ***list, int *n,
                             const char *name, size_t len, size_t size);
/* fn(p) when the configuration is freed: 0, or -1 (out of memory) */
int nicd_conf_cleanup(nicd_conf_t *c, void (*fn)(void *), void *p);
/* arr of n elements of size, grown by one (a new block) */
void *nicd_conf_grow(nicd_conf_t *c, void *arr, int n, size_t size);
/* a compiled regex for the configuration's lifetime (pcre2_code *), or
 * NULL with err */
void *nicd_conf_regex(nicd_conf_t *c, const char *re, int caseless, char *err,
                      size_t errlen);
/* "on"/"off", sizes, times and whole numbers > 0, for setters (NULL or a
 * message) */
const char *nicd_conf_size(const char *v, size_t *out);
const char *nicd_conf_time(const char *v, long *out);
const char *nicd_conf_positive(const char *v, int *out);
/* replace *dst (heap) with a copy of v */
const char *nicd_conf_str(char **dst, const char *v);

/*
 * A setter's message: NULL when it went well; one beginning "is " is said
 * as "\"NAME\" directive is ..."; any other as "... in \"NAME\"
 * directive", each followed by where it stands.  A setter that says its
 * error whole, as nginx's ngx_conf_log_error, returns nicd_conf_error().
 */
extern const char nicd_conf_reported[];
#define NICD_CONF_ERROR nicd_conf_reported
const char *nicd_conf_error(parse_t *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* a message for a setter to return (a static buffer) */
const char *nicd_conf_msg(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* "on"/"off" into *out: NULL or a message */
const char *nicd_conf_flag(const char *v, int *out);

/* a directive nginx has that means nothing to nicd: an info line */
const char *nicd_conf_housekeeping(parse_t *ps, const char **a, int n);

/* a location's content handler, once, named by the directive name that
 * set it (NULL or a message) */
const char *nicd_conf_handler(parse_t *ps, nicd_content_pt h, const char *name);

/*
 * A module, as nginx's ngx_module_t: the directives it owns, its own
 * settings at each level, and what it does at start-up and in each
 * worker.  main.c lists the modules (modules/modules.c) and gives the
 * list to nicd_conf_new(), which numbers them; conf.c reads every
 * module's table and knows none by name; the phases and filters call
 * what the modules hook into them (http/handler.h), so nothing below a
 * module calls it by name.
 */
struct nicd_worker_s;
typedef struct nicd_module_s {
    const char        *name;
    const directive_t *directives; /* ending with a NULL name, or NULL */
    /* a directive no table names (a send backend's report, whose names
     * the backends make): 1 when the module took it, with *msg NULL or
     * the error; 0 when it is not the module's */
    int (*unknown)(parse_t *ps, const char *name, const char **args, int nargs,
                   const char **msg);
    /*
     * Its settings of the http, server and location levels, as nginx's
     * create_loc_conf and merge_loc_conf (optional; merge NULL: a level
     * keeps only what it set, as a location's content handler's).
     * create: one level's, every field unset (NICD_UNSET, NULL), from the
     * configuration's arena; NULL when out of memory.  merge: what conf
     * does not set taken from prev, the enclosing level's (NULL at the
     * http level: the defaults); NULL, or a message.  A CTX_LOC
     * directive of the module writes its settings (its generic setters'
     * offsets are in them), and the module reads them at run time with
     * NICD_LOC_CONF(lc, module).
     */
    void *(*create_loc_conf)(nicd_conf_t *c);
    const char *(*merge_loc_conf)(nicd_conf_t *c, const void *prev, void *conf);
    /* once the whole configuration is read and merged (nginx's
     * postconfiguration), in the list's order: NULL, or a message that
     * fails the configuration */
    const char *(*postconfiguration)(nicd_conf_t *c);
    /* once, before any configuration is read: its filters and hooks into
     * the http layer (its phase handlers are a configuration's: added in
     * postconfiguration) */
    void (*init)(void);
    /* what it keeps per worker thread: made before the thread's first
     * request, freed when it ends */
    void (*worker_init)(struct nicd_worker_s *w);
    void (*worker_free)(struct nicd_worker_s *w);
    /* the variables it makes (http/variables.h), ending with a NULL name,
     * or NULL: looked up after the core's (nginx's preconfiguration
     * add_variables) */
    const struct nicd_var_s *variables;
    /* its place in the module list (nicd_conf_new() numbers them), which
     * indexes every level's settings (nginx's ctx_index) */
    int index;
} nicd_module_t;

/*
 * For merge hooks (nginx's ngx_conf_merge_*_value): conf's field f, left
 * unset (NICD_UNSET; a pointer: NULL), takes prev's (prev NULL: dflt).  A
 * list (pointer f, count n) is taken whole, as nginx's lists are.
 */
#define NICD_MERGE(conf, prev, f, dflt)                                        \
    do {                                                                       \
        if ((conf)->f == NICD_UNSET) {                                         \
            (conf)->f = (prev) != NULL ? (prev)->f : (dflt);                   \
        }                                                                      \
    } while (0)
/* a size_t field, unset as (size_t) NICD_UNSET */
#define NICD_MERGE_SIZE(conf, prev, f, dflt)                                   \
    do {                                                                       \
        if ((conf)->f == (size_t) NICD_UNSET) {                                \
            (conf)->f = (prev) != NULL ? (prev)->f : (dflt);                   \
        }                                                                      \
    } while (0)
#define NICD_MERGE_PTR(conf, prev, f, dflt)                                    \
    do {                                                                       \
        if ((conf)->f == NULL) {                                               \
            (conf)->f = (prev) != NULL ? (prev)->f : (dflt);                   \
        }                                                                      \
    } while (0)
#define NICD_MERGE_LIST(conf, prev, f, n)                                      \
    do {                                                                       \
        if ((conf)->f == NULL && (prev) != NULL) {                             \
            (conf)->f = (prev)->f;                                             \
            (conf)->n = (prev)->n;                                             \
        }                                                                      \
    } while (0)

/* the module's settings of a level (lc: a const nicd_loc_conf_t *) */
#define NICD_LOC_CONF(lc, module) ((lc)->mconf[(module).index])

/* the settings of the module of the directive being set, at the level
 * being read (a module's own setters write them) */
void *nicd_conf_module_loc(parse_t *ps);

/*
 * What the core module's blocks and setters need of the reader and of
 * the levels: a new location level (every module's settings made), a
 * new server, the server at hand (at the top level the implicit one,
 * made on first use: nicd's one-site form), the reader set where the
 * command line stands, and a directive applied where ps stands (0, or -1
 * with the error in ps->err).
 */
/* fn(lc, arg) for every level of c (http, each server, each location at
 * any depth, limit_except's), once each */
void nicd_conf_each_level(nicd_conf_t *c,
                          void (*fn)(nicd_loc_conf_t *lc, void *arg),
                          void *arg);

nicd_loc_conf_t    *nicd_conf_loc_new(nicd_conf_t *c, int kind);
nicd_server_conf_t *nicd_conf_server_new(nicd_conf_t *c, nicd_loc_conf_t *loc,
                                         const char *where);
nicd_server_conf_t *nicd_conf_server(parse_t *ps);
void                nicd_conf_parse_init(parse_t *ps, nicd_conf_t *c, char *err,
                                         size_t errlen);
int nicd_conf_apply(parse_t *ps, const char *name, const char **args,
                    int nargs);

/*
 * The generic setters, nginx's ngx_conf_set_*_slot: the directive's
 * first argument into the field at its offset, in the settings of its
 * module at the level being read (CTX_LOC among its contexts), else in
 * nicd_conf_t.  flag: "on"/"off" (int); enum: one of the names of the
 * directive's post table (int); msec: a time ("30s", "1m"; long ms);
 * size: a size ("64k"; size_t); positive: a whole number > 0 (int); str:
 * a string (char *); num: a whole number within the bounds of its post
 * table (nicd_conf_bounds_t; int).  NULL, or a message.
 */
const char *nicd_conf_slot_flag(parse_t *ps, const char **a, int n);
const char *nicd_conf_slot_enum(parse_t *ps, const char **a, int n);
const char *nicd_conf_slot_msec(parse_t *ps, const char **a, int n);
const char *nicd_conf_slot_size(parse_t *ps, const char **a, int n);
const char *nicd_conf_slot_positive(parse_t *ps, const char **a, int n);
const char *nicd_conf_slot_str(parse_t *ps, const char **a, int n);
const char *nicd_conf_slot_num(parse_t *ps, const char **a, int n);

/*
 * A list of MIME types (gzip_types, charset_types: nginx's
 * ngx_http_types_slot): slot_types sets one from every argument (lower
 * case; "*" is any type); a level that sets none takes its enclosing
 * level's whole (NICD_MERGE_LIST(conf, prev, types.type, types.n)).
 */
typedef struct {
    char **type; /* NULL: not set at this level */
    int    n;
} nicd_types_t;
const char *nicd_conf_slot_types(parse_t *ps, const char **a, int n);
/* is t (tlen bytes; its parameters after ';' not read) in l?  1 or 0 */
int nicd_types_has(const nicd_types_t *l, const char *t, size_t tlen);
/* the same, text/html being in every list (ssi_types, sub_filter_types,
 * addition_types, gzip_types) */
int nicd_types_html_or(const nicd_types_t *l, const char *t, size_t tlen);

#endif /* NICD_DIRECTIVE_H */

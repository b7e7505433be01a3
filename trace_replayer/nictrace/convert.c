/*
 * nictrace convert (nictrace.h): a trace into the compact format.
 */

#include "nictrace/nictrace.h"

/* convert: any format to the compact one (trace_nic.c) */
int
nictrace_convert(const trace_src_t *src, const char *out_path, int json)
{
    char            err[512], a[32];
    trace_reader_t *t = trace_src_open(src, err, sizeof(err));
    trace_strtab_t *urls = trace_strtab_new();
    trace_nic_enc_t enc = {0};
    trace_req_t     r;
    unsigned char  *rec = NULL;
    size_t          rec_size = 0, n;
    uint64_t        records = 0, bytes = TRACE_NIC_MAGIC_LEN;
    uint32_t        id;
    FILE           *out = NULL;
    int             rc = 1, added;

    if (t == NULL || urls == NULL) {
        fprintf(stderr, "nictrace: %s\n", t == NULL ? err : "out of memory");
        goto done;
    }
    out = fopen(out_path, "wb");
    if (out == NULL
        || fwrite(trace_nic_magic, TRACE_NIC_MAGIC_LEN, 1, out) != 1) {
        fprintf(stderr, "nictrace: %s: %s\n", out_path, strerror(errno));
        goto done;
    }
    while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
        if (trace_strtab_intern(urls, r.url, r.url_len, &id, &added) != 0) {
            snprintf(err, sizeof(err), "out of memory");
            rc = -1;
            break;
        }
        if (TRACE_NIC_MAX_RECORD(r.url_len) > rec_size) {
            rec_size = TRACE_NIC_MAX_RECORD(r.url_len) * 2;
            free(rec);
            if ((rec = malloc(rec_size)) == NULL) {
                snprintf(err, sizeof(err), "out of memory");
                rc = -1;
                break;
            }
        }
        n = trace_nic_encode(&enc, &r, id, added, rec);
        if (fwrite(rec, n, 1, out) != 1) {
            snprintf(err, sizeof(err), "%s: %s", out_path, strerror(errno));
            rc = -1;
            break;
        }
        records++;
        bytes += n;
    }
    if (rc < 0 || fclose(out) != 0) {
        fprintf(stderr, "nictrace: %s\n", rc < 0 ? err : strerror(errno));
        out = NULL;
        rc = 1;
        goto done;
    }
    out = NULL;
    if (json) {
        printf("{\"records\": %llu, \"bytes\": %llu, \"urls\": %u, "
               "\"parse_errors\": %llu}\n",
               (unsigned long long) records, (unsigned long long) bytes,
               trace_strtab_count(urls),
               (unsigned long long) trace_bad_count(t));
    } else {
        printf("%s records (%u URLs) in %s bytes to %s",
               nictrace_thousands(records, a), trace_strtab_count(urls),
               nictrace_thousands(bytes, err), out_path);
        printf("; %llu lines did not parse\n",
               (unsigned long long) trace_bad_count(t));
    }
    rc = nictrace_no_records(src->path, records, t) != 0
         || nictrace_late(src->path, t) != 0;

done:
    if (out != NULL) {
        fclose(out);
    }
    free(rec);
    trace_strtab_free(urls);
    trace_close(t);
    return rc;
}

/* kd_cgi_mapping.c - whether what a request's mapping to a script found
 * is still so (Kamado::CGI's cache of mappings): the system calls and
 * comparisons of every request to a mapped script, in one call.
 * The CGI runner's C, with the perl API: included by Kamado.xs after
 * the parts before it; its XS is xs/CGIMapping.xsh. */

#include <sys/stat.h>

/* A stat's fields that tell a file changed, as a key (kd_mode_key) */
struct kd_stat_key {
    IV dev, ino, size, mtime;
};

/* Kamado::CGI::ModeFile::key: what tells that some of FILES appeared,
 * changed or went, one stat each: for each, its device, inode, size and
 * mtime, or a mark that it is absent. Compared only with another key of
 * the same files. */
static SV *kd_mode_key(pTHX_ AV *files)
{
    SSize_t i, n = av_count(files);
    SV *key = newSVpvs("");
    for (i = 0; i < n; i++) {
        SV **path = av_fetch(files, i, 0);
        struct stat st;
        if (path && stat(SvPV_nolen(*path), &st) == 0) {
            struct kd_stat_key k;
            Zero(&k, 1, struct kd_stat_key);
            k.dev = (IV)st.st_dev;
            k.ino = (IV)st.st_ino;
            k.size = (IV)st.st_size;
            k.mtime = (IV)st.st_mtime;
            sv_catpvn(key, "+", 1);
            sv_catpvn(key, (const char *)&k, sizeof k);
        } else {
            sv_catpvn(key, "-", 1);
        }
    }
    return key;
}

static SV *kd_hit_part(pTHX_ HV *hit, const char *name, I32 len)
{
    SV **svp = hv_fetch(hit, name, len, 0);
    return svp ? *svp : NULL;
}

#define KD_HIT(hit, name) kd_hit_part(aTHX_(hit), "" name "", sizeof(name) - 1)

static AV *kd_hit_list(pTHX_ SV *sv)
{
    return sv && SvROK(sv) && SvTYPE(SvRV(sv)) == SVt_PVAV ? (AV *)SvRV(sv) : NULL;
}

/* Whether a directory on the way is still one (not a link) no one else
 * may write. */
static int kd_dir_kept(pTHX_ SV *dir)
{
    struct stat st;
    return dir && lstat(SvPV_nolen(dir), &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & S_IWOTH);
}

/* Kamado::CGI::_mapping_fresh: whether the mapping HIT (Kamado::CGI's
 * cache entry: file, lstat, dirs, absent, mode_files, mode_key) still
 * holds under ROOT: the script is the same plain file (its lstat's
 * device, inode, mode, size and mtime, as `pack 'j5'` keeps them), ROOT
 * and the directories on the way are still directories (not links) no
 * one else may write, the index files before the one chosen are still
 * not plain files, the .kamado-cgi files are unchanged. */
static int kd_mapping_fresh(pTHX_ HV *hit, SV *root)
{
    SV *file = KD_HIT(hit, "file"), *lstat_key = KD_HIT(hit, "lstat"), *mode_key = KD_HIT(hit, "mode_key");
    AV *dirs = kd_hit_list(aTHX_ KD_HIT(hit, "dirs")), *absent = kd_hit_list(aTHX_ KD_HIT(hit, "absent"));
    AV *mode_files = kd_hit_list(aTHX_ KD_HIT(hit, "mode_files"));
    struct stat st;
    IV now[5];
    STRLEN len;
    const char *want;
    SSize_t i;
    SV *key;
    int same;
    if (!file || !lstat_key || !mode_key || !mode_files || lstat(SvPV_nolen(file), &st) != 0)
        return 0;
    now[0] = (IV)st.st_dev;
    now[1] = (IV)st.st_ino;
    now[2] = (IV)st.st_mode;
    now[3] = (IV)st.st_size;
    now[4] = (IV)st.st_mtime;
    want = SvPV(lstat_key, len);
    if (len != sizeof now || memNE(want, now, sizeof now))
        return 0;
    if (!kd_dir_kept(aTHX_ root))
        return 0;
    for (i = 0; dirs && i < (SSize_t)av_count(dirs); i++) {
        SV **d = av_fetch(dirs, i, 0);
        if (!kd_dir_kept(aTHX_ d ? *d : NULL))
            return 0;
    }
    for (i = 0; absent && i < (SSize_t)av_count(absent); i++) {
        SV **a = av_fetch(absent, i, 0);
        if (a && stat(SvPV_nolen(*a), &st) == 0 && S_ISREG(st.st_mode))
            return 0;
    }
    key = kd_mode_key(aTHX_ mode_files);
    want = SvPV(mode_key, len);
    same = SvCUR(key) == len && memEQ(SvPVX(key), want, len);
    SvREFCNT_dec(key);
    return same;
}

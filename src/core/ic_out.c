/* ic_out: write beside, then rename. */
#include "ic_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether path names something that exists and is not a regular file. */
static bool special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* The error for a place that cannot be written, with what to do about it. */
static int cannot_write(struct ic_err *err, const char *path, const char *what, int e)
{
    ic_err_set(err, IC_EIO, path, 0, 0, "cannot write %s: %s", what, strerror(e));
    ic_err_hint(err, "%s", e == EISDIR ? "name a file, not a folder"
                           : e == ENOENT ? "the folder must exist: create it, or write elsewhere"
                           : e == EACCES || e == EPERM || e == EROFS
                               ? "the folder is not writable here: write elsewhere"
                               : "write elsewhere");
    return IC_EIO;
}

int ic_out_check(const char *path, const char *what, struct ic_err *err)
{
    struct stat st;
    bool existed = stat(path, &st) == 0;
    if (existed && S_ISDIR(st.st_mode))
        return cannot_write(err, path, what, EISDIR);
    /* open it as the write will (access() would let root through where the
     * write fails); a file made only for this goes again */
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (existed ? 0 : O_EXCL), 0666);
    if (fd < 0)
        return cannot_write(err, path, what, errno);
    close(fd);
    if (!existed)
        unlink(path);
    return IC_OK;
}

int ic_out_open(struct ic_out *o, const char *path, const char *what, struct ic_err *err)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    size_t len = strlen(path);
    if (len >= sizeof o->path)
        return ic_err_set(err, IC_EIO, NULL, 0, 0, "cannot write %s: the path is too long",
                          what);
    memcpy(o->path, path, len + 1);
    if (special(path)) {
        o->f = fopen(path, "w");
        if (!o->f)
            return cannot_write(err, path, what, errno);
        return IC_OK;
    }
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        o->tmp[0] = '\0';
        return cannot_write(err, path, what, e);
    }
    /* mkstemp makes it 0600; a new file gets what the umask allows, as
     * fopen would have given it */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return cannot_write(err, path, what, e);
    }
    return IC_OK;
}

bool ic_out_write(struct ic_out *o, const void *data, size_t n)
{
    errno = 0;
    /* a failed flush inside fwrite may still report every byte taken: the
     * stream's error flag says it, errno says why */
    if (fwrite(data, 1, n, o->f) == n && !ferror(o->f))
        return true;
    if (!o->write_errno)
        o->write_errno = errno ? errno : EIO;
    return false;
}

int ic_out_close(struct ic_out *o, bool failed, struct ic_err *err)
{
    int e = o->write_errno;
    if (!o->f)
        return failed ? IC_EIO : IC_OK;
    errno = 0;
    if ((fflush(o->f) != 0 || ferror(o->f)) && !e)
        e = errno ? errno : EIO;
    if (fclose(o->f) != 0 && !e)
        e = errno ? errno : EIO;
    o->f = NULL;
    if (!e && !failed && o->tmp[0] && rename(o->tmp, o->path) != 0)
        e = errno;
    if ((e || failed) && o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
    if (failed)
        return IC_EIO;
    if (e)
        return ic_err_set(err, IC_EIO, o->path, 0, 0, "cannot write %s: %s", o->what,
                          strerror(e));
    return IC_OK;
}

/*
 * MPI_T writes of values a CVAR does not accept: each argument NAME:BAD,BAD...:GOOD names
 * an int or enum CVAR, values (as MPI_T ints) it must refuse and one it must take.  A
 * refused write returns an error and leaves the CVAR as it was; the accepted one is read
 * back; then the job goes on (an allreduce checked).  Prints "cvar_mpit: N writes checked".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

#define CHECK(cond_, ...) \
    do { \
        if (!(cond_)) { \
            fprintf(stderr, "cvar_mpit: " __VA_ARGS__); \
            fputc('\n', stderr); \
            errors++; \
        } \
    } while (0)

static int read_cvar(MPI_T_cvar_handle h)
{
    int v = 0;
    CHECK(MPI_T_cvar_read(h, &v) == MPI_SUCCESS, "MPI_T_cvar_read failed");
    return v;
}

/* one argument's writes; returns how many were checked */
static int check_spec(char *spec)
{
    char *name = strtok(spec, ":"), *bad = strtok(NULL, ":"), *good = strtok(NULL, ":");
    int index, count, checked = 0;
    MPI_T_cvar_handle h;

    if (!name || !bad || !good || MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) {
        CHECK(0, "no CVAR or a malformed argument: %s", name ? name : "(empty)");
        return 0;
    }
    CHECK(MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS && count == 1,
          "%s: no handle", name);
    const int old = read_cvar(h);
    for (char *b = strtok(bad, ","); b; b = strtok(NULL, ","), checked++) {
        int v = atoi(b);
        CHECK(MPI_T_cvar_write(h, &v) != MPI_SUCCESS, "%s: the write of %d was taken", name, v);
        CHECK(read_cvar(h) == old, "%s: a refused write of %d changed it", name, v);
    }
    int v = atoi(good);
    CHECK(MPI_T_cvar_write(h, &v) == MPI_SUCCESS, "%s: the write of %d was refused", name, v);
    CHECK(read_cvar(h) == v, "%s: %d written, %d read", name, v, read_cvar(h));
    CHECK(MPI_T_cvar_write(h, &old) == MPI_SUCCESS, "%s: the old value was refused", name);
    MPI_T_cvar_handle_free(&h);
    return checked + 1;
}

int main(int argc, char **argv)
{
    int provided, rank, size, checked = 0;

    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        checked += check_spec(argv[i]);

    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size, "allreduce after the writes: %d, not %d", sum, size);
    if (rank == 0 && !errors)
        printf("cvar_mpit: %d writes checked\n", checked);
    MPI_T_finalize();
    MPI_Finalize();
    return errors ? 1 : 0;
}

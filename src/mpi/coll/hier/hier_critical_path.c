/*
 * mpich-hier: the critical path of a collective in messages (hier_critical_path.h).
 * Pure: no MPI.
 */

#include "hier_critical_path.h"
#include "hier_by_size.h"
#include "hier_segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An inter-node message outweighs any number of intra-node ones on a path (a path holds
 * at most 2 P messages of a ring, far below it), so the weight of a path decodes as
 * inter * INTER_WEIGHT + intra. */
#define INTER_WEIGHT ((int64_t) 1 << 20)

/* MPICH 5.0.1's generic tree (maint/tuning/coll/mpir/generic.json): what its auto
 * selection runs where hier hands a step to it */
#define MPICH_BCAST_SHORT_BYTES 12288   /* bcast: binomial up to it (and below 8 ranks) */
#define MPICH_BCAST_MEDIUM_BYTES 524288 /* then scatter + recursive doubling (pof2) */
/* MPIR_CVAR_ALLTOALL_THROTTLE's default: the receives and sends MPICH's scattered alltoall
 * posts at a time */
#define MPICH_ALLTOALL_THROTTLE 32

static const char *const coll_names[MPII_HIER_CPATH_NCOLLS] = {
    "bcast", "reduce", "allreduce", "allgather", "gather", "scatter", "barrier", "alltoall",
    "gatherv", "scatterv"
};

static int ceil_log2(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

static int floor_pof2(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static int is_pof2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

const char *MPII_Hier_cpath_coll_name(MPII_Hier_cpath_coll coll)
{
    return (unsigned) coll < MPII_HIER_CPATH_NCOLLS ? coll_names[coll] : NULL;
}

int MPII_Hier_cpath_coll_parse(const char *name)
{
    for (int c = 0; name && c < MPII_HIER_CPATH_NCOLLS; c++)
        if (strcmp(name, coll_names[c]) == 0)
            return c;
    return -1;
}

int MPII_Hier_cpath_shape_valid(const MPII_Hier_cpath_shape * shape)
{
    return shape && shape->nnodes >= 1 && shape->ppn >= 1 &&
        (shape->placement == MPII_HIER_CPATH_BLOCK ||
         shape->placement == MPII_HIER_CPATH_CYCLIC) &&
        (int64_t) shape->nnodes * shape->ppn <= MPII_HIER_CPATH_MAX_RANKS;
}

int MPII_Hier_cpath_node_of(const MPII_Hier_cpath_shape * shape, int rank)
{
    return shape->placement == MPII_HIER_CPATH_BLOCK ? rank / shape->ppn : rank % shape->nnodes;
}

int MPII_Hier_cpath_member(const MPII_Hier_cpath_shape * shape, int node, int i)
{
    return shape->placement == MPII_HIER_CPATH_BLOCK ? node * shape->ppn + i :
        node + i * shape->nnodes;
}

/* ==== the simulator ================================================================ */

/* An MPIC_Sendrecv is one op, and the same one repeated (a ring's steps) too: the ops of
 * a ring stay few. */
#define SIM_SENDRECV (MPII_HIER_CPATH_IRECV + 1)
#define SIM_WAITALL (SIM_SENDRECV + 1)

typedef struct {
    int kind;                   /* MPII_Hier_cpath_op, SIM_SENDRECV or SIM_WAITALL */
    int peer;                   /* SIM_SENDRECV: the destination */
    int src;                    /* SIM_SENDRECV: the source */
    int repeat;                 /* SIM_SENDRECV: times */
} sim_op;

typedef struct {
    sim_op *ops;
    int n, cap;
} sim_prog;

typedef struct {
    int *ids;                   /* messages to this rank in the order sent, -1 once received */
    int n, cap;
    int head;                   /* the ones before it are all received */
} sim_inbox;

typedef struct {
    int src;
    int shm;
    int received;
    int64_t t;                  /* when the sender let it go; once received, when the
                                 * receiver has it (a shared-memory one: from the start) */
} sim_msg;

typedef struct {
    int pc;                     /* the next op of the rank's program */
    int sub;                    /* of a SIM_SENDRECV op: 2 * times done, + 1 once sent */
    int last_send;              /* its last normal message, -1 before */
    int64_t t_in;               /* everything it received so far has arrived */
    int64_t t_shm;              /* its shared-memory steps so far are done */
    int64_t t_rlast;            /* its previous normal receive completed */
    int posted;                 /* its posted receives not yet matched */
    int ppc;                    /* the op of the oldest of them, if any, is at or after it */
    int64_t t_posted;           /* its posted receives matched so far have arrived */
} sim_state;

/* A message's slot is taken again once it is received and, a normal one, once its
 * sender sent the next: a ring's 2 P^2 messages then need about P slots. */
struct MPII_Hier_cpath_sim {
    MPII_Hier_cpath_shape shape;
    int nranks;
    int failed;                 /* a rank out of range, or no memory, while adding */
    int *node;                  /* of each rank */
    sim_prog *prog;
    sim_inbox *inbox;
    sim_state *st;
    sim_msg *msgs;              /* the slots */
    int nmsgs, msgcap;
    int *free_ids;              /* the slots free again */
    int nfree, freecap;
    int64_t sent, received;
    int64_t longest;            /* the latest arrival so far */
};

/* buf with room for need elements (cap updated), NULL (buf untouched) on no memory */
static void *grow(void *buf, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return buf;
    int ncap = *cap ? *cap : 8;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(buf, (size_t) ncap * elem);
    if (p)
        *cap = ncap;
    return p;
}

MPII_Hier_cpath_sim *MPII_Hier_cpath_sim_create(const MPII_Hier_cpath_shape * shape)
{
    if (!MPII_Hier_cpath_shape_valid(shape))
        return NULL;
    MPII_Hier_cpath_sim *sim = calloc(1, sizeof(*sim));
    if (!sim)
        return NULL;
    sim->shape = *shape;
    sim->nranks = shape->nnodes * shape->ppn;
    sim->prog = calloc(sim->nranks, sizeof(*sim->prog));
    sim->inbox = calloc(sim->nranks, sizeof(*sim->inbox));
    sim->st = calloc(sim->nranks, sizeof(*sim->st));
    sim->node = calloc(sim->nranks, sizeof(*sim->node));
    if (!sim->prog || !sim->inbox || !sim->st || !sim->node) {
        MPII_Hier_cpath_sim_free(sim);
        return NULL;
    }
    for (int r = 0; r < sim->nranks; r++)
        sim->node[r] = MPII_Hier_cpath_node_of(shape, r);
    return sim;
}

void MPII_Hier_cpath_sim_free(MPII_Hier_cpath_sim * sim)
{
    if (!sim)
        return;
    for (int r = 0; r < sim->nranks; r++) {
        if (sim->prog)
            free(sim->prog[r].ops);
        if (sim->inbox)
            free(sim->inbox[r].ids);
    }
    free(sim->prog);
    free(sim->inbox);
    free(sim->st);
    free(sim->node);
    free(sim->msgs);
    free(sim->free_ids);
    free(sim);
}

/* a new op at the end of rank's program, NULL (sim failed) on a bad rank or no memory */
static sim_op *append_op(MPII_Hier_cpath_sim * sim, int rank, int peer)
{
    if (rank < 0 || rank >= sim->nranks || peer < 0 || peer >= sim->nranks) {
        sim->failed = 1;
        return NULL;
    }
    sim_prog *p = &sim->prog[rank];
    if (p->n == p->cap) {
        sim_op *ops = grow(p->ops, &p->cap, p->n + 1, sizeof(*ops));
        if (!ops) {
            sim->failed = 1;
            return NULL;
        }
        p->ops = ops;
    }
    sim_op *op = &p->ops[p->n++];
    op->peer = peer;
    op->src = -1;
    op->repeat = 1;
    return op;
}

void MPII_Hier_cpath_sim_add(MPII_Hier_cpath_sim * sim, int rank, MPII_Hier_cpath_op op, int peer)
{
    if ((unsigned) op > MPII_HIER_CPATH_IRECV) {
        sim->failed = 1;
        return;
    }
    sim_op *o = append_op(sim, rank, peer);
    if (o)
        o->kind = op;
}

void MPII_Hier_cpath_sim_sendrecv(MPII_Hier_cpath_sim * sim, int rank, int dst, int src)
{
    if (src < 0 || src >= sim->nranks) {
        sim->failed = 1;
        return;
    }
    if (rank >= 0 && rank < sim->nranks && sim->prog[rank].n > 0) {
        sim_op *last = &sim->prog[rank].ops[sim->prog[rank].n - 1];
        if (last->kind == SIM_SENDRECV && last->peer == dst && last->src == src) {
            last->repeat++;
            return;
        }
    }
    sim_op *o = append_op(sim, rank, dst);
    if (o) {
        o->kind = SIM_SENDRECV;
        o->src = src;
    }
}

void MPII_Hier_cpath_sim_waitall(MPII_Hier_cpath_sim * sim, int rank)
{
    sim_op *o = append_op(sim, rank, rank);
    if (o)
        o->kind = SIM_WAITALL;
}

static int64_t weight(const MPII_Hier_cpath_sim * sim, int a, int b)
{
    return sim->node[a] != sim->node[b] ? INTER_WEIGHT : 1;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* a slot for a new message, -1 on no memory */
static int take_slot(MPII_Hier_cpath_sim * sim)
{
    if (sim->nfree > 0)
        return sim->free_ids[--sim->nfree];
    if (sim->nmsgs == sim->msgcap) {
        sim_msg *msgs = grow(sim->msgs, &sim->msgcap, sim->nmsgs + 1, sizeof(*msgs));
        if (!msgs)
            return -1;
        sim->msgs = msgs;
    }
    return sim->nmsgs++;
}

/* room for slot id on the free list: it can hold every slot, so that freeing never fails */
static int free_slot(MPII_Hier_cpath_sim * sim, int id)
{
    if (sim->freecap < sim->msgcap) {
        int *ids = grow(sim->free_ids, &sim->freecap, sim->msgcap, sizeof(*ids));
        if (!ids)
            return -1;
        sim->free_ids = ids;
    }
    sim->free_ids[sim->nfree++] = id;
    return 0;
}

/* Rank r's send op: 1 when posted, 0 while its previous send is not yet received (a rank
 * sends one message at a time), -1 on no memory.  A shared-memory step's messages go at
 * once, after the rank's previous normal send; a normal send also waits for them. */
static int post_send(MPII_Hier_cpath_sim * sim, int r, int shm, int peer)
{
    sim_state *s = &sim->st[r];
    int64_t ready = shm ? s->t_in : max64(s->t_in, s->t_shm);
    if (s->last_send >= 0) {
        if (!sim->msgs[s->last_send].received)
            return 0;
        ready = max64(ready, sim->msgs[s->last_send].t);
    }
    sim_inbox *in = &sim->inbox[peer];
    if (in->n == in->cap) {
        int *ids = grow(in->ids, &in->cap, in->n + 1, sizeof(*ids));
        if (!ids)
            return -1;
        in->ids = ids;
    }
    int id = take_slot(sim);
    if (id < 0 || (!shm && s->last_send >= 0 && free_slot(sim, s->last_send) < 0))
        return -1;
    sim_msg *m = &sim->msgs[id];
    m->src = r;
    m->shm = shm;
    m->received = 0;
    m->t = shm ? ready + weight(sim, r, peer) : ready;
    in->ids[in->n++] = id;
    sim->sent++;
    if (shm)
        s->t_shm = max64(s->t_shm, m->t);
    else
        s->last_send = id;
    return 1;
}

/* Rank r's receive op: 1 when matched, 0 while the message is not sent yet (or, a
 * blocking one, while r's posted receives are not all matched: r's receives complete in
 * program order), -1 on no memory.  A normal message ends one weight after both its sender
 * let it go and r's previous normal receive completed. */
static int take_recv(MPII_Hier_cpath_sim * sim, int r, int shm, int peer, int posted)
{
    sim_inbox *in = &sim->inbox[r];
    sim_state *s = &sim->st[r];
    if (!shm && !posted && s->posted > 0)
        return 0;
    while (in->head < in->n && in->ids[in->head] < 0)
        in->head++;
    if (in->head == in->n)
        in->head = in->n = 0;
    for (int i = in->head; i < in->n; i++) {
        sim_msg *m = in->ids[i] >= 0 ? &sim->msgs[in->ids[i]] : NULL;
        if (!m || m->src != peer || m->shm != shm)
            continue;
        if (!shm) {
            m->t = max64(m->t, s->t_rlast) + weight(sim, peer, r);
            s->t_rlast = m->t;
        }
        m->received = 1;
        if (posted)
            s->t_posted = max64(s->t_posted, m->t);
        else
            s->t_in = max64(s->t_in, m->t);
        sim->longest = max64(sim->longest, m->t);
        sim->received++;
        if (shm && free_slot(sim, in->ids[i]) < 0)
            return -1;
        in->ids[i] = -1;
        return 1;
    }
    return 0;
}

/* Rank r's posted receives, oldest first, as far as their messages are sent: returns the
 * receives matched, -1 on no memory */
static int take_posted(MPII_Hier_cpath_sim * sim, int r)
{
    const sim_prog *p = &sim->prog[r];
    sim_state *s = &sim->st[r];
    int done = 0;
    for (; s->posted > 0; s->ppc++) {
        if (p->ops[s->ppc].kind != MPII_HIER_CPATH_IRECV)
            continue;
        int k = take_recv(sim, r, 0, p->ops[s->ppc].peer, 1);
        if (k <= 0)
            return k < 0 ? -1 : done;
        s->posted--;
        done++;
    }
    return done;
}

/* Rank r's next op, or the next half of its sendrecv: 1 when done, 0 when blocked, -1
 * on no memory.  A posted receive is done once posted; the waitall once all are matched. */
static int step_op(MPII_Hier_cpath_sim * sim, int r, const sim_op * op)
{
    sim_state *s = &sim->st[r];
    switch (op->kind) {
        case MPII_HIER_CPATH_SEND:
        case MPII_HIER_CPATH_SHM_SEND:
            return post_send(sim, r, op->kind == MPII_HIER_CPATH_SHM_SEND, op->peer);
        case MPII_HIER_CPATH_RECV:
        case MPII_HIER_CPATH_SHM_RECV:
            return take_recv(sim, r, op->kind == MPII_HIER_CPATH_SHM_RECV, op->peer, 0);
        case MPII_HIER_CPATH_IRECV:
            if (s->posted++ == 0)
                s->ppc = s->pc;
            return 1;
        case SIM_SENDRECV:
            return s->sub % 2 ? take_recv(sim, r, 0, op->src, 0) :
                post_send(sim, r, 0, op->peer);
        default:
            if (s->posted > 0)
                return 0;
            s->t_in = max64(s->t_in, s->t_posted);
            return 1;
    }
}

/* Runs rank r's program as far as it can go, its posted receives too; returns the steps
 * done, -1 on no memory. */
static int advance(MPII_Hier_cpath_sim * sim, int r)
{
    const sim_prog *p = &sim->prog[r];
    sim_state *s = &sim->st[r];
    int done = 0, k;
    while (s->pc < p->n) {
        const sim_op *op = &p->ops[s->pc];
        k = step_op(sim, r, op);
        if (k == 0) {
            /* blocked: a posted receive may be what it waits for */
            k = take_posted(sim, r);
            if (k > 0) {
                done += k;
                continue;
            }
        }
        if (k <= 0)
            return k < 0 ? -1 : done;
        done++;
        if (op->kind == SIM_SENDRECV && ++s->sub < 2 * op->repeat)
            continue;
        s->sub = 0;
        s->pc++;
    }
    k = take_posted(sim, r);
    return k < 0 ? -1 : done + k;
}

static void sim_reset(MPII_Hier_cpath_sim * sim)
{
    sim->nmsgs = sim->nfree = 0;
    sim->sent = sim->received = sim->longest = 0;
    for (int r = 0; r < sim->nranks; r++) {
        sim->inbox[r].n = 0;
        sim->inbox[r].head = 0;
        memset(&sim->st[r], 0, sizeof(sim->st[r]));
        sim->st[r].last_send = -1;
    }
}

int MPII_Hier_cpath_sim_run(MPII_Hier_cpath_sim * sim, MPII_Hier_cpath_count * count)
{
    if (!sim || sim->failed)
        return -1;
    sim_reset(sim);
    /* the times depend only on each message's predecessors, so any order of the ranks
     * gives the same ones: sweep them until none moves */
    int64_t moved;
    do {
        moved = 0;
        for (int r = 0; r < sim->nranks; r++) {
            int k = advance(sim, r);
            if (k < 0)
                return -1;
            moved += k;
        }
    } while (moved);
    for (int r = 0; r < sim->nranks; r++)
        if (sim->st[r].pc < sim->prog[r].n || sim->st[r].posted > 0)
            return -1;
    if (sim->received != sim->sent)
        return -1;
    count->inter = (int) (sim->longest / INTER_WEIGHT);
    count->intra = (int) (sim->longest % INTER_WEIGHT);
    return 0;
}

/* ==== MPICH's message patterns, on a group g[0..n-1] of ranks, root g[0] ============ */

typedef void (*group_gen) (MPII_Hier_cpath_sim * sim, const int *g, int n);

static void send_to(MPII_Hier_cpath_sim * sim, int from, int to)
{
    MPII_Hier_cpath_sim_add(sim, from, MPII_HIER_CPATH_SEND, to);
}

static void recv_from(MPII_Hier_cpath_sim * sim, int at, int from)
{
    MPII_Hier_cpath_sim_add(sim, at, MPII_HIER_CPATH_RECV, from);
}

/* MPIR_Bcast_intra_binomial (and MPIR_Scatter_intra_binomial's pattern): receive from
 * the parent, then send to the children, largest subtree first */
static void gen_bcast_binomial(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int rel = 0; rel < n; rel++) {
        int mask = 1;
        while (mask < n && !(rel & mask))
            mask <<= 1;
        if (mask < n)
            recv_from(sim, g[rel], g[rel - mask]);
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (rel + mask < n)
                send_to(sim, g[rel], g[rel + mask]);
    }
}

/* MPIR_Reduce_intra_binomial, commutative (and MPIR_Gather_intra_binomial's pattern):
 * receive from the children, smallest subtree first, then send to the parent */
static void gen_reduce_binomial(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int rel = 0; rel < n; rel++)
        for (int mask = 1; mask < n; mask <<= 1) {
            if (rel & mask) {
                send_to(sim, g[rel], g[rel & ~mask]);
                break;
            }
            if ((rel | mask) < n)
                recv_from(sim, g[rel], g[rel | mask]);
        }
}

/* The fold of a non-power-of-two size (MPICH's recursive doubling and reduce-scatter +
 * allgather of allreduce): the even ranks below 2 rem hand their data to the next one
 * and wait for the result.  Returns rank i's rank in the power of two, -1 when it sits
 * out. */
static int fold_in(MPII_Hier_cpath_sim * sim, const int *g, int n, int i)
{
    int rem = n - floor_pof2(n);
    if (i >= 2 * rem)
        return i - rem;
    if (i % 2 == 0) {
        send_to(sim, g[i], g[i + 1]);
        return -1;
    }
    recv_from(sim, g[i], g[i - 1]);
    return i / 2;
}

static void fold_out(MPII_Hier_cpath_sim * sim, const int *g, int n, int i)
{
    int rem = n - floor_pof2(n);
    if (i >= 2 * rem)
        return;
    if (i % 2)
        send_to(sim, g[i], g[i - 1]);
    else
        recv_from(sim, g[i], g[i + 1]);
}

/* the exchange with the partner newrank ^ mask in the folded power of two */
static void folded_exchange(MPII_Hier_cpath_sim * sim, const int *g, int n, int i, int newrank,
                            int mask)
{
    int rem = n - floor_pof2(n);
    int newdst = newrank ^ mask;
    int dst = g[newdst < rem ? newdst * 2 + 1 : newdst + rem];
    MPII_Hier_cpath_sim_sendrecv(sim, g[i], dst, dst);
}

static void gen_allreduce_rd(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    int pof2 = floor_pof2(n);
    for (int i = 0; i < n; i++) {
        int newrank = fold_in(sim, g, n, i);
        for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1)
            folded_exchange(sim, g, n, i, newrank, mask);
        fold_out(sim, g, n, i);
    }
}

/* reduce-scatter by recursive halving, allgather by recursive doubling, in reverse */
static void gen_allreduce_rsa(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    int pof2 = floor_pof2(n);
    for (int i = 0; i < n; i++) {
        int newrank = fold_in(sim, g, n, i);
        for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1)
            folded_exchange(sim, g, n, i, newrank, mask);
        for (int mask = pof2 / 2; newrank >= 0 && mask > 0; mask >>= 1)
            folded_exchange(sim, g, n, i, newrank, mask);
        fold_out(sim, g, n, i);
    }
}

/* steps exchanges with the right neighbour (send) and the left one (receive) */
static void ring_steps(MPII_Hier_cpath_sim * sim, const int *g, int n, int steps)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < steps; k++)
            MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[(i + 1) % n], g[(i - 1 + n) % n]);
}

/* MPIR_Allreduce_intra_ring: a ring reduce-scatter, then MPIR_Allgatherv_intra_ring */
static void gen_allreduce_ring(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    ring_steps(sim, g, n, 2 * (n - 1));
}

static void gen_allgather_ring(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    ring_steps(sim, g, n, n - 1);
}

/* MPIR_Allgather_intra_recursive_doubling, power-of-two sizes */
static void gen_allgather_rd(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int mask = 1; mask < n; mask <<= 1)
            MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[i ^ mask], g[i ^ mask]);
}

/* MPIR_Allgather_intra_brucks: floor(log2 n) doubling steps, one more for the rest */
static void gen_allgather_brucks(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 0; i < n; i++) {
        int pof2 = 1;
        for (; pof2 <= n / 2; pof2 *= 2)
            MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[(i - pof2 + n) % n], g[(i + pof2) % n]);
        if (n - pof2 > 0)
            MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[(i - pof2 + n) % n], g[(i + pof2) % n]);
    }
}

/* MPIR_Barrier_intra_k_dissemination with k = 2 (MPICH's dissemination) */
static void gen_barrier_dissemination(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int mask = 1; mask < n; mask <<= 1)
            MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[(i + mask) % n], g[(i - mask + n) % n]);
}

/* MPIR_Bcast_intra_scatter_recursive_doubling_allgather, power-of-two sizes: a binomial
 * scatter, then recursive doubling */
static void gen_bcast_scatter_rd(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    gen_bcast_binomial(sim, g, n);
    gen_allgather_rd(sim, g, n);
}

/* MPIR_Bcast_intra_scatter_ring_allgather: a binomial scatter, then a ring */
static void gen_bcast_scatter_ring(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    gen_bcast_binomial(sim, g, n);
    ring_steps(sim, g, n, n - 1);
}

/* the device's release_gather: every rank to its leader, or back, in one step */
static void gen_shm_up(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 1; i < n; i++) {
        MPII_Hier_cpath_sim_add(sim, g[i], MPII_HIER_CPATH_SHM_SEND, g[0]);
        MPII_Hier_cpath_sim_add(sim, g[0], MPII_HIER_CPATH_SHM_RECV, g[i]);
    }
}

static void gen_shm_down(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 1; i < n; i++) {
        MPII_Hier_cpath_sim_add(sim, g[0], MPII_HIER_CPATH_SHM_SEND, g[i]);
        MPII_Hier_cpath_sim_add(sim, g[i], MPII_HIER_CPATH_SHM_RECV, g[0]);
    }
}

/* MPIR_Gatherv_allcomm_linear: every rank sends its block to g[0], which posts every
 * receive at once */
static void gen_gatherv_linear(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 1; i < n; i++) {
        send_to(sim, g[i], g[0]);
        MPII_Hier_cpath_sim_add(sim, g[0], MPII_HIER_CPATH_IRECV, g[i]);
    }
    MPII_Hier_cpath_sim_waitall(sim, g[0]);
}

/* MPIR_Scatterv_allcomm_linear: g[0] sends every rank its block, one after the other */
static void gen_scatterv_linear(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 1; i < n; i++) {
        send_to(sim, g[0], g[i]);
        recv_from(sim, g[i], g[0]);
    }
}

/* MPIR_Alltoall_intra_brucks, and MPIR_TSP_Ialltoall_sched_intra_brucks with k = 2 (the
 * plugin's): in the round of distance pof2 < n, a send to i + pof2 and a receive from
 * i - pof2; the round's send does not wait for its receive, the next round's does (its
 * blocks are packed from what the receive brought) */
static void gen_alltoall_brucks(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int pof2 = 1; pof2 < n; pof2 *= 2)
            MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[(i + pof2) % n], g[(i - pof2 + n) % n]);
}

/* Rank i's sends to i + dir d and receives from i - dir d, d = lo .. hi - 1, posted at once
 * and waited for together; the receives in the order their messages leave (the one port
 * takes them as they arrive, whatever the order MPI posts them in) */
static void exchange_at_once(MPII_Hier_cpath_sim * sim, const int *g, int n, int i, int lo,
                             int hi, int dir)
{
    for (int d = lo; d < hi; d++)
        MPII_Hier_cpath_sim_add(sim, g[i], MPII_HIER_CPATH_IRECV, g[(i - dir * d + n) % n]);
    for (int d = lo; d < hi; d++)
        send_to(sim, g[i], g[(i + dir * d + n) % n]);
    MPII_Hier_cpath_sim_waitall(sim, g[i]);
}

/* the plugin's linear exchange (a2a_exchange): every rank sends to i + 1, i + 2, ... all
 * at once, one after the other through its port, and receives from every other rank */
static void gen_alltoall_linear(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 0; i < n; i++)
        exchange_at_once(sim, g, n, i, 1, n, 1);
}

/* MPIR_Alltoall_intra_scattered: batches of MPIR_CVAR_ALLTOALL_THROTTLE peers, to i - d
 * from i + d, each posted at once and waited for before the next; its first message is
 * to itself (through the device, not a local copy: an intra-node step) */
static void gen_alltoall_scattered(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int lo = 0; lo < n; lo += MPICH_ALLTOALL_THROTTLE)
            exchange_at_once(sim, g, n, i, lo,
                             lo + MPICH_ALLTOALL_THROTTLE < n ? lo + MPICH_ALLTOALL_THROTTLE : n,
                             -1);
}

/* MPIR_Alltoall_intra_pairwise: n - 1 MPIC_Sendrecv, with i ^ d on a power of two, else
 * to i + d from i - d */
static void gen_alltoall_pairwise(MPII_Hier_cpath_sim * sim, const int *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int d = 1; d < n; d++) {
            if (is_pof2(n))
                MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[i ^ d], g[i ^ d]);
            else
                MPII_Hier_cpath_sim_sendrecv(sim, g[i], g[(i + d) % n], g[(i - d + n) % n]);
        }
}

/* ==== MPICH's bcast pick on a node (its auto, where hier hands the step over) ========== */

typedef enum {
    PICK_BINOMIAL,
    PICK_SCATTER_RD,
    PICK_SCATTER_RING
} bcast_pick;

static bcast_pick mpich_bcast_pick(int n, int64_t bytes)
{
    if (n < 8 || bytes <= MPICH_BCAST_SHORT_BYTES)
        return PICK_BINOMIAL;
    if (is_pof2(n) && bytes <= MPICH_BCAST_MEDIUM_BYTES)
        return PICK_SCATTER_RD;
    return PICK_SCATTER_RING;
}

static const char *const pick_names[] = { "binomial", "scatter_rd_allgather",
    "scatter_ring_allgather"
};

static const group_gen pick_gens[] = { gen_bcast_binomial, gen_bcast_scatter_rd,
    gen_bcast_scatter_ring
};

/* the steps of a pick among n ranks of one node (the unit test checks them against the
 * simulator) */
static int pick_steps(bcast_pick pick, int n)
{
    switch (pick) {
        case PICK_SCATTER_RD:
            return 2 * ceil_log2(n);
        case PICK_SCATTER_RING:
            return ceil_log2(n) + n - 1;
        default:
            return ceil_log2(n);
    }
}

/* ==== MPICH's algorithms ============================================================ */

typedef enum {
    ON_NONE,                    /* ends the phases */
    ON_ALL,                     /* the whole communicator */
    ON_LEADERS,                 /* the nodes' first ranks */
    ON_NODES,                   /* inside every node */
    NODE_UP,                    /* inside every node: shm, binomial reduce over a cell */
    NODE_DOWN                   /* inside every node: shm, MPICH's bcast pick over a cell */
} scope;

typedef struct {
    scope where;
    group_gen gen;
} phase;

typedef struct {
    MPII_Hier_cpath_coll coll;
    const char *name;           /* as MPICH's algorithm CVARs (CH4's for the compositions) */
    int pof2_only;
    phase phases[3];
} algo_entry;

static const algo_entry algos[] = {
    {MPII_HIER_CPATH_BCAST, "binomial", 0, {{ON_ALL, gen_bcast_binomial}}},
    {MPII_HIER_CPATH_BCAST, "scatter_recursive_doubling_allgather", 1,
     {{ON_ALL, gen_bcast_scatter_rd}}},
    {MPII_HIER_CPATH_BCAST, "scatter_ring_allgather", 0, {{ON_ALL, gen_bcast_scatter_ring}}},
    {MPII_HIER_CPATH_BCAST, "smp", 0,
     {{ON_LEADERS, gen_bcast_binomial}, {ON_NODES, gen_bcast_binomial}}},
    {MPII_HIER_CPATH_BCAST, "composition_alpha", 0,
     {{ON_LEADERS, gen_bcast_binomial}, {NODE_DOWN, NULL}}},
    {MPII_HIER_CPATH_REDUCE, "binomial", 0, {{ON_ALL, gen_reduce_binomial}}},
    {MPII_HIER_CPATH_REDUCE, "smp", 0,
     {{ON_NODES, gen_reduce_binomial}, {ON_LEADERS, gen_reduce_binomial}}},
    {MPII_HIER_CPATH_REDUCE, "composition_alpha", 0,
     {{NODE_UP, NULL}, {ON_LEADERS, gen_reduce_binomial}}},
    {MPII_HIER_CPATH_ALLREDUCE, "recursive_doubling", 0, {{ON_ALL, gen_allreduce_rd}}},
    {MPII_HIER_CPATH_ALLREDUCE, "reduce_scatter_allgather", 0, {{ON_ALL, gen_allreduce_rsa}}},
    {MPII_HIER_CPATH_ALLREDUCE, "ring", 0, {{ON_ALL, gen_allreduce_ring}}},
    {MPII_HIER_CPATH_ALLREDUCE, "composition_alpha", 0,
     {{NODE_UP, NULL}, {ON_LEADERS, gen_allreduce_rd}, {NODE_DOWN, NULL}}},
    {MPII_HIER_CPATH_ALLGATHER, "recursive_doubling", 1, {{ON_ALL, gen_allgather_rd}}},
    {MPII_HIER_CPATH_ALLGATHER, "brucks", 0, {{ON_ALL, gen_allgather_brucks}}},
    {MPII_HIER_CPATH_ALLGATHER, "ring", 0, {{ON_ALL, gen_allgather_ring}}},
    {MPII_HIER_CPATH_GATHER, "binomial", 0, {{ON_ALL, gen_reduce_binomial}}},
    {MPII_HIER_CPATH_SCATTER, "binomial", 0, {{ON_ALL, gen_bcast_binomial}}},
    {MPII_HIER_CPATH_BARRIER, "k_dissemination", 0, {{ON_ALL, gen_barrier_dissemination}}},
    {MPII_HIER_CPATH_BARRIER, "composition_alpha", 0,
     {{ON_NODES, gen_shm_up}, {ON_LEADERS, gen_barrier_dissemination},
      {ON_NODES, gen_shm_down}}},
    {MPII_HIER_CPATH_ALLTOALL, "brucks", 0, {{ON_ALL, gen_alltoall_brucks}}},
    {MPII_HIER_CPATH_ALLTOALL, "scattered", 0, {{ON_ALL, gen_alltoall_scattered}}},
    {MPII_HIER_CPATH_ALLTOALL, "pairwise", 0, {{ON_ALL, gen_alltoall_pairwise}}},
    {MPII_HIER_CPATH_GATHERV, "linear", 0, {{ON_ALL, gen_gatherv_linear}}},
    {MPII_HIER_CPATH_SCATTERV, "linear", 0, {{ON_ALL, gen_scatterv_linear}}},
};

#define NALGOS ((int) (sizeof(algos) / sizeof(algos[0])))

int MPII_Hier_cpath_nalgos(void)
{
    return NALGOS;
}

const char *MPII_Hier_cpath_algo_name(int algo)
{
    return algo >= 0 && algo < NALGOS ? algos[algo].name : NULL;
}

MPII_Hier_cpath_coll MPII_Hier_cpath_algo_coll(int algo)
{
    return algo >= 0 && algo < NALGOS ? algos[algo].coll : (MPII_Hier_cpath_coll) - 1;
}

int MPII_Hier_cpath_algo_find(MPII_Hier_cpath_coll coll, const char *name)
{
    for (int a = 0; name && a < NALGOS; a++)
        if (algos[a].coll == coll && strcmp(algos[a].name, name) == 0)
            return a;
    return -1;
}

/* gen on the ranks of scope where (the nodes one after another) */
static void run_on(MPII_Hier_cpath_sim * sim, scope where, group_gen gen)
{
    const MPII_Hier_cpath_shape *sh = &sim->shape;
    int *g = malloc(sizeof(int) * sim->nranks);
    if (!g) {
        sim->failed = 1;
        return;
    }
    if (where == ON_ALL) {
        for (int r = 0; r < sim->nranks; r++)
            g[r] = r;
        gen(sim, g, sim->nranks);
    } else if (where == ON_LEADERS) {
        for (int node = 0; node < sh->nnodes; node++)
            g[node] = MPII_Hier_cpath_member(sh, node, 0);
        gen(sim, g, sh->nnodes);
    } else {
        for (int node = 0; node < sh->nnodes; node++) {
            for (int i = 0; i < sh->ppn; i++)
                g[i] = MPII_Hier_cpath_member(sh, node, i);
            gen(sim, g, sh->ppn);
        }
    }
    free(g);
}

/* a composition's step inside the nodes: the device's shared memory while the message
 * fits a cell, else what MPICH runs on the node communicator */
static void run_phase(MPII_Hier_cpath_sim * sim, const phase * ph, int64_t bytes)
{
    int shm = MPII_Hier_sized_intra_shm(bytes, MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT);
    if (ph->where == NODE_UP)
        run_on(sim, ON_NODES, shm ? gen_shm_up : gen_reduce_binomial);
    else if (ph->where == NODE_DOWN)
        run_on(sim, ON_NODES, shm ? gen_shm_down :
               pick_gens[mpich_bcast_pick(sim->shape.ppn, bytes)]);
    else
        run_on(sim, ph->where, ph->gen);
}

int MPII_Hier_cpath_mpich(int algo, const MPII_Hier_cpath_shape * shape, int64_t bytes,
                          MPII_Hier_cpath_count * count)
{
    if (algo < 0 || algo >= NALGOS || !MPII_Hier_cpath_shape_valid(shape))
        return -1;
    const algo_entry *a = &algos[algo];
    if (a->pof2_only && !is_pof2(shape->nnodes * shape->ppn))
        return 1;
    MPII_Hier_cpath_sim *sim = MPII_Hier_cpath_sim_create(shape);
    if (!sim)
        return -1;
    for (int k = 0; k < 3 && a->phases[k].where != ON_NONE; k++)
        run_phase(sim, &a->phases[k], bytes);
    int rc = MPII_Hier_cpath_sim_run(sim, count);
    MPII_Hier_cpath_sim_free(sim);
    return rc;
}

/* ==== hier's default plan ============================================================ */

static void plan_step(MPII_Hier_cpath_plan * plan, const char *name, int n, int inter,
                      int intra, int *direction)
{
    char *s = plan->step[plan->nsteps++];
    if (n > 0)
        snprintf(s, MPII_HIER_CPATH_NAME_LEN, "%s(%d)", name, n);
    else
        snprintf(s, MPII_HIER_CPATH_NAME_LEN, "%s", name);
    plan->count.inter += inter;
    plan->count.intra += intra;
    if (direction)
        *direction += intra;
}

/* a step inside the node towards the leader (reduce): the by_size intra submodule */
static void intra_reduce(MPII_Hier_cpath_plan * plan, int ppn, int64_t bytes)
{
    if (ppn <= 1)
        return;
    if (MPII_Hier_sized_intra_shm(bytes, MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT))
        plan_step(plan, "shm", 0, 0, 1, &plan->intra_up);
    else
        plan_step(plan, "binomial", ppn, 0, ceil_log2(ppn), &plan->intra_up);
}

/* a step inside the node from the leader (bcast): shm (where by_size may take it), else
 * MPICH's pick */
static void intra_bcast(MPII_Hier_cpath_plan * plan, int ppn, int64_t bytes, int shm)
{
    if (ppn <= 1)
        return;
    if (shm && MPII_Hier_sized_intra_shm(bytes, MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT)) {
        plan_step(plan, "shm", 0, 0, 1, &plan->intra_down);
        return;
    }
    bcast_pick pick = mpich_bcast_pick(ppn, bytes);
    plan_step(plan, pick_names[pick], ppn, 0, pick_steps(pick, ppn), &plan->intra_down);
}

/* gather and scatter inside the node: MPICH's pick, its binomial tree (the alltoall's rows
 * go along the same tree, the plugin's) */
static void intra_binomial(MPII_Hier_cpath_plan * plan, int ppn, int *direction)
{
    if (ppn > 1)
        plan_step(plan, "binomial", ppn, 0, ceil_log2(ppn), direction);
}

/* gather and scatter inside the node of the node's blocks (node_bytes): by_size's shm
 * step where MPII_Hier_sized_rooted_shm takes it, else MPICH's binomial tree */
static void intra_rooted(MPII_Hier_cpath_plan * plan, int ppn, int64_t node_bytes,
                         int *direction)
{
    if (ppn > 1 &&
        MPII_Hier_sized_rooted_shm(ppn, node_bytes, MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT))
        plan_step(plan, "shm", 0, 0, 1, direction);
    else
        intra_binomial(plan, ppn, direction);
}

/* The plugin's plan of `bytes` in segments of segsize, and how many pieces it moves (at
 * least one) */
static MPII_Hier_seg_plan plan_of(int64_t bytes, int64_t segsize, int64_t * pieces)
{
    MPII_Hier_seg_plan seg;
    MPII_Hier_seg_plan_init(&seg, bytes, segsize, 1);
    *pieces = seg.nsegs > 1 ? seg.nsegs : 1;
    return seg;
}

/* bcast and reduce among the leaders: by_size's binomial tree or chain of the pieces */
static void inter_tree(MPII_Hier_cpath_plan * plan, MPII_Hier_sized_op op, int n, int64_t bytes,
                       int64_t latency_bytes)
{
    if (n <= 1)
        return;
    int64_t pieces;
    MPII_Hier_seg_plan seg = plan_of(bytes, MPII_HIER_SEGSIZE_DEFAULT, &pieces);
    int latency = MPII_Hier_sized_plan_latency(op, &seg, n, 0, latency_bytes);
    int hops = MPII_Hier_sized_hops(op, latency, n) + (latency ? 0 : (int) pieces - 1);
    plan_step(plan, latency ? "binomial" : "chain", n, hops, 0, NULL);
}

static void inter_allreduce(MPII_Hier_cpath_plan * plan, int n, int64_t bytes,
                            int64_t latency_bytes)
{
    if (n <= 1)
        return;
    int64_t pieces;
    MPII_Hier_seg_plan seg = plan_of(bytes, MPII_HIER_SEGSIZE_DEFAULT, &pieces);
    int latency = MPII_Hier_sized_plan_latency(MPII_HIER_SIZED_ALLREDUCE, &seg, n, 0,
                                               latency_bytes);
    plan_step(plan, latency ? "recursive_doubling" : "ring", n,
              MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLREDUCE, latency, n), 0, NULL);
}

/* by_size's latency regime where MPICH's flat recursive doubling crosses nodes fewer
 * times than among the node leaders (MPII_Hier_sized_allreduce_flat): the plugin runs it
 * on the whole comm.  Returns whether it does. */
static int flat_allreduce(MPII_Hier_cpath_plan * plan, const MPII_Hier_cpath_shape * shape,
                          int64_t bytes, int64_t latency_bytes)
{
    int size = shape->nnodes * shape->ppn, node_of[MPII_HIER_CPATH_MAX_RANKS];
    int64_t pieces;
    MPII_Hier_seg_plan seg = plan_of(bytes, MPII_HIER_SEGSIZE_DEFAULT, &pieces);
    MPII_Hier_cpath_count count;

    if (shape->ppn <= 1 || shape->nnodes <= 1 ||
        !MPII_Hier_sized_plan_latency(MPII_HIER_SIZED_ALLREDUCE, &seg, shape->nnodes, 0,
                                      latency_bytes))
        return 0;
    for (int r = 0; r < size; r++)
        node_of[r] = MPII_Hier_cpath_node_of(shape, r);
    if (!MPII_Hier_sized_allreduce_flat(node_of, size, shape->nnodes) ||
        MPII_Hier_cpath_mpich(MPII_Hier_cpath_algo_find(MPII_HIER_CPATH_ALLREDUCE,
                                                        "recursive_doubling"), shape, bytes,
                              &count) != 0)
        return 0;
    plan_step(plan, "flat recursive_doubling", size, count.inter, count.intra, NULL);
    return 1;
}

/* the leaders' exchange of node blocks: by_size's Bruck or ring; the ring cuts each block
 * into pieces, and every leader sends all of the others' pieces in turn */
static void inter_allgather(MPII_Hier_cpath_plan * plan, int n, int64_t block,
                            int64_t latency_bytes)
{
    if (n <= 1)
        return;
    int latency = MPII_Hier_sized_latency(MPII_HIER_SIZED_ALLGATHER, block, 1, n, latency_bytes);
    int64_t pieces = 1;
    if (!latency)
        plan_of(block, MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT, &pieces);
    plan_step(plan, latency ? "brucks" : "ring", n,
              MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLGATHER, latency, n) * (int) pieces, 0,
              NULL);
}

/* the gather's and scatter's tree among the leaders, by_size's (their default): binomial
 * or linear for a node's block of block bytes */
static void inter_rooted(MPII_Hier_cpath_plan * plan, int n, int64_t block,
                         int64_t latency_bytes)
{
    if (n <= 1)
        return;
    int latency = MPII_Hier_sized_latency(MPII_HIER_SIZED_ROOTED, block, 1, n, latency_bytes);
    plan_step(plan, latency ? "binomial" : "linear", n,
              MPII_Hier_sized_hops(MPII_HIER_SIZED_ROOTED, latency, n), 0, NULL);
}

/* by_size decides the allgather's intra-node steps once per call, by everything the last
 * bcast moves: while it fits a cell the bcast is shm and the gather the gather's by_size,
 * MPICH's picks beyond */
static void plan_allgather(MPII_Hier_cpath_plan * plan, const MPII_Hier_cpath_shape * shape,
                           int64_t bytes, int64_t latency_bytes)
{
    int n = shape->nnodes, ppn = shape->ppn;
    int64_t all = bytes * ppn * n;

    if (MPII_Hier_sized_intra_shm(all, MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT))
        intra_rooted(plan, ppn, bytes * ppn, &plan->intra_up);
    else
        intra_binomial(plan, ppn, &plan->intra_up);
    inter_allgather(plan, n, bytes * ppn, latency_bytes);
    intra_bcast(plan, ppn, all, 1);
}

/* the count of gen alone on where of shape, by the simulator: 0, -1 on no memory */
static int count_on(const MPII_Hier_cpath_shape * shape, scope where, group_gen gen,
                    MPII_Hier_cpath_count * count)
{
    MPII_Hier_cpath_sim *sim = MPII_Hier_cpath_sim_create(shape);
    if (!sim)
        return -1;
    run_on(sim, where, gen);
    int rc = MPII_Hier_cpath_sim_run(sim, count);
    MPII_Hier_cpath_sim_free(sim);
    return rc;
}

/* by_size's alltoall (alltoall_intra_hier.c): where it aggregates the blocks, each node's
 * rows gathered onto its leader along the binomial tree, the leaders' pieces of ppn^2
 * blocks exchanged by Bruck's or all at once (linear), the rows scattered back.  The
 * exchange among all ranks, each its own group ("direct" all at once, or Bruck's, by the
 * block): blocks it does not aggregate, groups of one rank, one node, or nodes that are no
 * runs of ranks (cyclic: the plugin's fallback).  The exchange is simulated: the direct
 * one's messages mix inter- and intra-node ones.  Returns 0, -1 on no memory. */
static int plan_alltoall(MPII_Hier_cpath_plan * plan, const MPII_Hier_cpath_shape * shape,
                         int64_t block, int64_t latency_bytes)
{
    int n = shape->nnodes, ppn = shape->ppn, size = n * ppn;
    int flat = !MPII_Hier_sized_alltoall_aggregate(block, size, latency_bytes) || ppn == 1 ||
        n == 1 || shape->placement == MPII_HIER_CPATH_CYCLIC;
    int brucks = MPII_Hier_sized_alltoall_brucks(flat ? block : block * ppn * ppn,
                                                 flat ? size : n, latency_bytes);
    MPII_Hier_cpath_count count;

    if (size == 1 || block <= 0)        /* the plugin sends nothing */
        return 0;
    if (count_on(shape, flat ? ON_ALL : ON_LEADERS,
                 brucks ? gen_alltoall_brucks : gen_alltoall_linear, &count) != 0)
        return -1;
    if (!flat)
        intra_binomial(plan, ppn, &plan->intra_up);
    plan_step(plan, brucks ? "brucks" : flat ? "direct" : "linear", flat ? size : n,
              count.inter, count.intra, NULL);
    if (!flat)
        intra_binomial(plan, ppn, &plan->intra_down);
    return 0;
}

/* The gatherv's and scatterv's plan (gatherv_intra_hier.c, scatterv_intra_hier.c), every
 * rank a block of block bytes, simulated: the blocks that go straight between their rank
 * and the root (MPII_Hier_sized_rooted_v_direct) first, as they are posted with the
 * schedule; then, on several nodes of several ranks in block placement, the counts (the
 * gatherv's up the node's binomial tree; the scatterv's from the root to each leader,
 * with the leader's run where MPII_Hier_sized_rooted_v_with_counts takes it, then down
 * the tree) and the blocks through the leaders (up the tree and each leader to the root;
 * the scatterv's run, unless it rode with the counts, from the root, then down the
 * tree).  Elsewhere (one node, one rank a node, cyclic placement: the plugin's flat plan)
 * every block between its rank and the root.  Returns 0, -1 on no memory. */
static int plan_rooted_v(MPII_Hier_cpath_plan * plan, const MPII_Hier_cpath_shape * shape,
                         int64_t block, int64_t latency_bytes, int gather)
{
    int n = shape->nnodes, ppn = shape->ppn, size = n * ppn;
    int flat = n == 1 || ppn == 1 || shape->placement == MPII_HIER_CPATH_CYCLIC;
    int direct = MPII_Hier_sized_rooted_v_direct(block, latency_bytes);
    int with_counts = MPII_Hier_sized_rooted_v_with_counts(direct ? 0 : block * ppn,
                                                           latency_bytes);
    group_gen linear = gather ? gen_gatherv_linear : gen_scatterv_linear;
    group_gen tree = gather ? gen_reduce_binomial : gen_bcast_binomial;
    MPII_Hier_cpath_count count;
    MPII_Hier_cpath_sim *sim;

    if (size == 1)
        return 0;
    if (!(sim = MPII_Hier_cpath_sim_create(shape)))
        return -1;
    if (flat || direct)
        run_on(sim, ON_ALL, linear);
    if (!flat && !gather)
        run_on(sim, ON_LEADERS, linear);
    if (!flat)
        run_on(sim, ON_NODES, tree);
    if (!flat && !direct) {
        if (gather)
            run_on(sim, ON_NODES, tree);
        if (!gather && !with_counts)
            run_on(sim, ON_LEADERS, linear);
        run_on(sim, gather ? ON_LEADERS : ON_NODES, gather ? linear : tree);
    }
    int rc = MPII_Hier_cpath_sim_run(sim, &count);
    MPII_Hier_cpath_sim_free(sim);
    if (rc != 0)
        return -1;
    /* the steps in the order they start, each with its member count; the simulated
     * count goes with the last */
    const char *names[3] = { "linear" };
    int members[3] = { size }, nsteps = 1;
    if (!flat && gather && direct) {
        nsteps = 2;
        names[0] = "binomial counts", members[0] = ppn;
        names[1] = "direct", members[1] = size;
    } else if (!flat && gather) {
        nsteps = 3;
        names[0] = "binomial counts", members[0] = ppn;
        names[1] = "binomial", members[1] = ppn;
        names[2] = "linear", members[2] = n;
    } else if (!flat) {
        nsteps = 3;
        names[0] = direct ? "linear counts" : with_counts ? "linear with runs" : "linear, twice";
        members[0] = n;
        names[1] = "binomial counts", members[1] = ppn;
        names[2] = direct ? "direct" : "binomial", members[2] = direct ? size : ppn;
    }
    for (int k = 0; k < nsteps; k++)
        plan_step(plan, names[k], members[k], k == nsteps - 1 ? count.inter : 0,
                  k == nsteps - 1 ? count.intra : 0, NULL);
    return 0;
}

static void plan_barrier(MPII_Hier_cpath_plan * plan, const MPII_Hier_cpath_shape * shape)
{
    if (shape->ppn > 1)
        plan_step(plan, "shm", 0, 0, 1, &plan->intra_up);
    if (shape->nnodes > 1)
        plan_step(plan, "dissemination", shape->nnodes, ceil_log2(shape->nnodes), 0,
                  NULL);
    if (shape->ppn > 1)
        plan_step(plan, "shm", 0, 0, 1, &plan->intra_down);
}

int MPII_Hier_cpath_hier_plan(MPII_Hier_cpath_coll coll, const MPII_Hier_cpath_shape * shape,
                              int64_t bytes, int64_t latency_bytes, MPII_Hier_cpath_plan * plan)
{
    if (!MPII_Hier_cpath_shape_valid(shape) || (unsigned) coll >= MPII_HIER_CPATH_NCOLLS)
        return -1;
    memset(plan, 0, sizeof(*plan));
    int n = shape->nnodes, ppn = shape->ppn;
    switch (coll) {
        case MPII_HIER_CPATH_BCAST:
            inter_tree(plan, MPII_HIER_SIZED_BCAST, n, bytes, latency_bytes);
            intra_bcast(plan, ppn, bytes, 1);
            break;
        case MPII_HIER_CPATH_REDUCE:
            intra_reduce(plan, ppn, bytes);
            inter_tree(plan, MPII_HIER_SIZED_REDUCE, n, bytes, latency_bytes);
            break;
        case MPII_HIER_CPATH_ALLREDUCE:
            if (flat_allreduce(plan, shape, bytes, latency_bytes))
                break;
            intra_reduce(plan, ppn, bytes);
            inter_allreduce(plan, n, bytes, latency_bytes);
            intra_bcast(plan, ppn, bytes, 1);
            break;
        case MPII_HIER_CPATH_ALLGATHER:
            plan_allgather(plan, shape, bytes, latency_bytes);
            break;
        case MPII_HIER_CPATH_GATHER:
            intra_rooted(plan, ppn, bytes * ppn, &plan->intra_up);
            inter_rooted(plan, n, bytes * ppn, latency_bytes);
            break;
        case MPII_HIER_CPATH_SCATTER:
            inter_rooted(plan, n, bytes * ppn, latency_bytes);
            intra_rooted(plan, ppn, bytes * ppn, &plan->intra_down);
            break;
        case MPII_HIER_CPATH_ALLTOALL:
            return plan_alltoall(plan, shape, bytes, latency_bytes);
        case MPII_HIER_CPATH_GATHERV:
        case MPII_HIER_CPATH_SCATTERV:
            return plan_rooted_v(plan, shape, bytes, latency_bytes,
                                 coll == MPII_HIER_CPATH_GATHERV);
        default:
            plan_barrier(plan, shape);
    }
    return 0;
}

void MPII_Hier_cpath_plan_text(const MPII_Hier_cpath_plan * plan, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    size_t at = 0;
    for (int k = 0; k < plan->nsteps && at < len; k++) {
        int w = snprintf(buf + at, len - at, "%s%s", k ? " > " : "", plan->step[k]);
        if (w < 0)
            return;
        at += (size_t) w;
    }
    if (plan->nsteps == 0)
        snprintf(buf, len, "-");
}

/* ==== hier against MPICH ============================================================= */

int MPII_Hier_cpath_compare(MPII_Hier_cpath_coll coll, const MPII_Hier_cpath_shape * shape,
                            int64_t bytes, int64_t latency_bytes, MPII_Hier_cpath_row * row)
{
    if (MPII_Hier_cpath_hier_plan(coll, shape, bytes, latency_bytes, &row->hier) != 0)
        return -1;
    row->best = -1;
    for (int a = 0; a < NALGOS; a++) {
        if (algos[a].coll != coll)
            continue;
        MPII_Hier_cpath_count c;
        int rc = MPII_Hier_cpath_mpich(a, shape, bytes, &c);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue;
        if (row->best < 0 || c.inter < row->best_count.inter ||
            (c.inter == row->best_count.inter && c.intra < row->best_count.intra)) {
            row->best = a;
            row->best_count = c;
        }
    }
    return row->best >= 0 ? 0 : -1;
}

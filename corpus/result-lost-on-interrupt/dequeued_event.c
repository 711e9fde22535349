/* result-lost-on-interrupt, the second shape: the callback stores an event a
 * library call took off a completion queue (modelled `dequeues: true`,
 * rules/models/grpc.yml) in a member of the caller's struct, and the caller
 * returns it after the call. rb_thread_call_without_gvl handles pending
 * interrupts after the callback returned and raises: the event is off the
 * queue and never handled. The declarations are ours, in the shape of gRPC
 * core's grpc.h. */
#include <ruby.h>
#include <ruby/thread.h>

typedef struct grpc_completion_queue grpc_completion_queue;
typedef struct {
	long tv_sec;
	int tv_nsec;
	int clock_type;
} gpr_timespec;
typedef enum { GRPC_QUEUE_SHUTDOWN, GRPC_QUEUE_TIMEOUT, GRPC_OP_COMPLETE } grpc_completion_type;
typedef struct {
	grpc_completion_type type;
	int success;
	void *tag;
} grpc_event;
extern grpc_event grpc_completion_queue_pluck(grpc_completion_queue *cq, void *tag, gpr_timespec deadline,
					      void *reserved);
extern gpr_timespec gpr_now(int clock);

struct pluck_call {
	grpc_completion_queue *cq;
	void *tag;
	gpr_timespec deadline;
	grpc_event event;
	gpr_timespec at;
	volatile int interrupted;
};

static void *pluck_nogvl(void *p)
{
	struct pluck_call *pc = (struct pluck_call *)p;
	pc->event = grpc_completion_queue_pluck(pc->cq, pc->tag, pc->deadline, NULL);
	return NULL;
}

static void pluck_ubf(void *p)
{
	struct pluck_call *pc = (struct pluck_call *)p;
	pc->interrupted = 1;
}

grpc_event pluck_event(grpc_completion_queue *cq, void *tag, gpr_timespec deadline)
{
	struct pluck_call pc;
	MEMZERO(&pc, struct pluck_call, 1);
	pc.cq = cq;
	pc.tag = tag;
	pc.deadline = deadline;
	pc.event.type = GRPC_QUEUE_TIMEOUT;
	do {
		pc.interrupted = 0;
		rb_thread_call_without_gvl(pluck_nogvl, &pc, pluck_ubf, &pc); /* expect: result-lost-on-interrupt */ /* expect-msg: loses 'pc.event', which the callback 'pluck_nogvl' took off a queue */
	} while (pc.interrupted && pc.event.type == GRPC_QUEUE_TIMEOUT);
	return pc.event;
}

/* trap: RB_NOGVL_INTR_FAIL returns instead of raising */
grpc_event pluck_intr_fail(grpc_completion_queue *cq, void *tag, gpr_timespec deadline)
{
	struct pluck_call pc = {cq, tag, deadline, {GRPC_QUEUE_TIMEOUT, 0, NULL}, {0, 0, 0}, 0};
	rb_nogvl(pluck_nogvl, &pc, pluck_ubf, &pc, RB_NOGVL_INTR_FAIL);
	return pc.event;
}

/* trap: rb_thread_call_without_gvl2 does not raise either */
grpc_event pluck_gvl2(grpc_completion_queue *cq, void *tag, gpr_timespec deadline)
{
	struct pluck_call pc = {cq, tag, deadline, {GRPC_QUEUE_TIMEOUT, 0, NULL}, {0, 0, 0}, 0};
	rb_thread_call_without_gvl2(pluck_nogvl, &pc, pluck_ubf, &pc);
	rb_thread_check_ints();
	return pc.event;
}

/* trap: the caller only tests the event's type */
static long timeouts;

void pluck_count(grpc_completion_queue *cq, void *tag, gpr_timespec deadline)
{
	struct pluck_call pc = {cq, tag, deadline, {GRPC_QUEUE_TIMEOUT, 0, NULL}, {0, 0, 0}, 0};
	rb_thread_call_without_gvl(pluck_nogvl, &pc, pluck_ubf, &pc);
	if (pc.event.type == GRPC_QUEUE_TIMEOUT)
		timeouts++;
}

/* trap: a library call that takes nothing off a queue */
static void *clock_nogvl(void *p)
{
	struct pluck_call *pc = (struct pluck_call *)p;
	pc->at = gpr_now(0);
	return NULL;
}

gpr_timespec clock_now(void)
{
	struct pluck_call pc = {NULL, NULL, {0, 0, 0}, {GRPC_QUEUE_TIMEOUT, 0, NULL}, {0, 0, 0}, 0};
	rb_thread_call_without_gvl(clock_nogvl, &pc, pluck_ubf, &pc); /* expect: offload-candidate */
	return pc.at;
}

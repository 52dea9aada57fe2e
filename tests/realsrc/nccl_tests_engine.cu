// After nccl-tests src/all_reduce.cu and common.cu: a collective's handlers kept in a testColl
// table filled by an aggregate initializer, the test engine's hooks in a testEngine initialised
// with commented field names, the table picked with args->collTest = &allReduceTest, and the
// benchmark capturing startColl's calls through args->collTest->runColl on each GPU's stream.
// Implementations kept in an array picked by an index the command line sets. Hazards written
// in (expect:), clean edits beside them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <nccl.h>

typedef enum { testSuccess = 0, testInternalError = 1, testCudaError = 2, testNcclError = 3 } testResult_t;

#define CUDACHECK(cmd) do {                                       \
	cudaError_t e = cmd;                                      \
	if (e != cudaSuccess) {                                   \
		printf("Cuda failure '%s'\n", cudaGetErrorString(e)); \
		return testCudaError;                             \
	}                                                         \
} while (0)

#define NCCLCHECK(cmd) do {                                       \
	ncclResult_t r = cmd;                                     \
	if (r != ncclSuccess) {                                   \
		printf("NCCL failure %d\n", (int)r);              \
		return testNcclError;                             \
	}                                                         \
} while (0)

#define TESTCHECK(cmd) do {                                       \
	testResult_t r = cmd;                                     \
	if (r != testSuccess)                                     \
		return r;                                         \
} while (0)

struct threadArgs;

struct testColl {
	const char name[20];
	void (*getCollByteCount)(size_t *sendcount, size_t *recvcount, size_t count, int nranks);
	testResult_t (*initData)(struct threadArgs *args, ncclDataType_t type, int rep);
	void (*getBw)(size_t count, size_t typesize, double sec, double *algBw, double *busBw, int nranks);
	testResult_t (*runColl)(void *sendbuff, void *recvbuff, size_t count, ncclDataType_t type, ncclComm_t comm,
				cudaStream_t stream, int implIndex);
};

struct testEngine {
	void (*getBuffSize)(size_t *sendcount, size_t *recvcount, size_t count, int nranks);
	testResult_t (*runTest)(struct threadArgs *args, int root, ncclDataType_t type, const char *typeName);
};

struct threadArgs {
	size_t nbytes;
	int nGpus, nranks, implIndex;
	void **sendbuffs, **recvbuffs, **expected;
	ncclComm_t *comms;
	cudaStream_t *streams;
	struct testColl *collTest;
};

static int blocking_coll = 0;
static int cudaGraphLaunches = 1;

void AllReduceGetCollByteCount(size_t *sendcount, size_t *recvcount, size_t count, int nranks)
{
	*sendcount = count;
	*recvcount = count;
}

testResult_t AllReduceInitData(struct threadArgs *args, ncclDataType_t type, int rep)
{
	size_t bytes = args->nbytes;
	for (int i = 0; i < args->nGpus; i++) {
		CUDACHECK(cudaMemset(args->recvbuffs[i], 0, bytes));
		// clean edit: a blocking copy, but initData runs before the capture
		CUDACHECK(cudaMemcpy(args->expected[i], args->sendbuffs[i], bytes, cudaMemcpyDefault));
	}
	return testSuccess;
}

void AllReduceGetBw(size_t count, size_t typesize, double sec, double *algBw, double *busBw, int nranks)
{
	*algBw = (double)(count * typesize) / 1.0E9 / sec;
	*busBw = *algBw * (2.0 * (nranks - 1)) / nranks;
}

static testResult_t RunDefault(void *sendbuff, void *recvbuff, size_t count, ncclDataType_t type, ncclComm_t comm,
			       cudaStream_t stream)
{
	NCCLCHECK(ncclAllReduce(sendbuff, recvbuff, count, type, ncclSum, comm, stream));
	return testSuccess;
}

// an implementation that checks its result right away: fine when run eagerly, not in a graph
static testResult_t RunChecked(void *sendbuff, void *recvbuff, size_t count, ncclDataType_t type, ncclComm_t comm,
			       cudaStream_t stream)
{
	NCCLCHECK(ncclAllReduce(sendbuff, recvbuff, count, type, ncclSum, comm, stream));
	CUDACHECK(cudaStreamSynchronize(stream));  // expect: error CG301
	return testSuccess;
}

typedef testResult_t (*implFn)(void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
static const implFn impls[] = {RunDefault, RunChecked};

testResult_t AllReduceRunColl(void *sendbuff, void *recvbuff, size_t count, ncclDataType_t type, ncclComm_t comm,
			      cudaStream_t stream, int implIndex)
{
	if (implIndex < 0 || implIndex > 1)
		return testInternalError;
	return impls[implIndex](sendbuff, recvbuff, count, type, comm, stream);
}

struct testColl allReduceTest = {
	"AllReduce",
	AllReduceGetCollByteCount,
	AllReduceInitData,
	AllReduceGetBw,
	AllReduceRunColl
};

testResult_t startColl(struct threadArgs *args, ncclDataType_t type, int iter)
{
	size_t count = args->nbytes / sizeof(float);
	NCCLCHECK(ncclGroupStart());
	for (int i = 0; i < args->nGpus; i++)
		TESTCHECK(args->collTest->runColl(args->sendbuffs[i], args->recvbuffs[i], count, type, args->comms[i],
						  args->streams[i], args->implIndex));
	NCCLCHECK(ncclGroupEnd());
	return testSuccess;
}

static testResult_t testStreamSynchronize(int ngpus, cudaStream_t *streams)
{
	for (int i = 0; i < ngpus; i++)
		CUDACHECK(cudaStreamSynchronize(streams[i]));
	return testSuccess;
}

testResult_t BenchTime(struct threadArgs *args, ncclDataType_t type, int iters, cudaGraphExec_t *graphExec)
{
	TESTCHECK(args->collTest->initData(args, type, 99));
	cudaGraph_t graphs[8];
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaStreamBeginCapture(args->streams[i], cudaStreamCaptureModeThreadLocal));
	for (int iter = 0; iter < iters; iter++)
		TESTCHECK(startColl(args, type, iter));  // expect: warning CG410
	double algBw, busBw;
	// clean edit: host arithmetic through the table inside the capture
	args->collTest->getBw(args->nbytes / sizeof(float), sizeof(float), 1.0, &algBw, &busBw, args->nranks);
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaStreamEndCapture(args->streams[i], graphs + i));
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaGraphInstantiate(graphExec + i, graphs[i], NULL, NULL, 0));
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaGraphDestroy(graphs[i]));
	for (int l = 0; l < cudaGraphLaunches; l++)
		for (int i = 0; i < args->nGpus; i++)
			CUDACHECK(cudaGraphLaunch(graphExec[i], args->streams[i]));
	// clean edit: the sync helper after every capture ended
	if (blocking_coll)
		TESTCHECK(testStreamSynchronize(args->nGpus, args->streams));
	return testSuccess;
}

void AllReduceGetBuffSize(size_t *sendcount, size_t *recvcount, size_t count, int nranks)
{
	AllReduceGetCollByteCount(sendcount, recvcount, count, nranks);
}

testResult_t AllReduceRunTest(struct threadArgs *args, int root, ncclDataType_t type, const char *typeName)
{
	args->collTest = &allReduceTest;
	cudaGraphExec_t exec[8];
	TESTCHECK(BenchTime(args, type, 20, exec));
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaGraphExecDestroy(exec[i]));
	return testSuccess;
}

struct testEngine ncclTestEngine = {
	/* .getBuffSize = */ AllReduceGetBuffSize,
	/* .runTest = */ AllReduceRunTest,
};

testResult_t threadRunTests(struct threadArgs *args)
{
	CUDACHECK(cudaSetDevice(0));
	TESTCHECK(ncclTestEngine.runTest(args, 0, ncclFloat, "float"));
	return testSuccess;
}

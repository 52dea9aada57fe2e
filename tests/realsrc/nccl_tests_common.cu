// After nccl-tests src/common.cu (benchmark timing with CUDA graphs): one capture per GPU
// stream in loops over args->streams[i], thread-local mode, CUDACHECK/NCCLCHECK/TESTCHECK
// macros that return on failure, helpers the capture calls, and the engine's collective
// reached through a function pointer table.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>

typedef enum { testSuccess = 0, testInternalError = 1, testCudaError = 2, testNcclError = 3 } testResult_t;

#define CUDACHECK(cmd) do {                                       \
	cudaError_t err = cmd;                                    \
	if (err != cudaSuccess) {                                 \
		printf("Cuda failure '%s'\n", cudaGetErrorString(err)); \
		return testCudaError;                             \
	}                                                         \
} while (0)

#define NCCLCHECK(cmd) do {                                       \
	ncclResult_t res = cmd;                                   \
	if (res != ncclSuccess) {                                 \
		printf("NCCL failure %d\n", (int)res);            \
		return testNcclError;                             \
	}                                                         \
} while (0)

#define TESTCHECK(cmd) do {                                       \
	testResult_t r = cmd;                                     \
	if (r != testSuccess)                                     \
		return r;                                         \
} while (0)

struct threadArgs {
	int nGpus;
	size_t nbytes;
	void **sendbuffs, **recvbuffs;
	ncclComm_t *comms;
	cudaStream_t *streams;
	int *gpus;
};

struct testColl {
	const char name[20];
	testResult_t (*runColl)(void *sendbuff, void *recvbuff, size_t count, ncclComm_t comm, cudaStream_t stream);
};

static testResult_t AllReduceRunColl(void *sendbuff, void *recvbuff, size_t count, ncclComm_t comm, cudaStream_t stream)
{
	NCCLCHECK(ncclAllReduce(sendbuff, recvbuff, count, ncclFloat, ncclSum, comm, stream));
	return testSuccess;
}

static testResult_t CheckedRunColl(void *sendbuff, void *recvbuff, size_t count, ncclComm_t comm, cudaStream_t stream)
{
	NCCLCHECK(ncclAllReduce(sendbuff, recvbuff, count, ncclFloat, ncclSum, comm, stream));
	CUDACHECK(cudaStreamSynchronize(stream));  // expect: error CG301
	return testSuccess;
}

static testColl allReduceTest = {"AllReduce", AllReduceRunColl};
static testColl checkedTest = {"Checked", CheckedRunColl};

testResult_t startColl(struct threadArgs *args, testColl *coll, int iter)
{
	for (int i = 0; i < args->nGpus; i++) {
		CUDACHECK(cudaSetDevice(args->gpus[i]));
		// the pointer is set by the tables' aggregate initialisers ({"Checked", CheckedRunColl}):
		// followed into the entry 'coll' points at (BenchTime's allReduceTest syncs nothing)
		TESTCHECK(coll->runColl(args->sendbuffs[i], args->recvbuffs[i], args->nbytes / sizeof(float), args->comms[i],
					args->streams[i]));
	}
	return testSuccess;
}

static testResult_t pollStreams(int ngpus, cudaStream_t *streams)
{
	for (int i = 0; i < ngpus; i++) {
		cudaError_t cudaErr = cudaStreamQuery(streams[i]);  // expect: error CG302
		if (cudaErr != cudaSuccess && cudaErr != cudaErrorNotReady)
			return testCudaError;
	}
	return testSuccess;
}

testResult_t reportMemory(struct threadArgs *args);  // in util.cu

testResult_t BenchTime(struct threadArgs *args, int iters, int graphLaunches, bool poll)
{
	std::vector<cudaGraph_t> graphs(args->nGpus);
	std::vector<cudaGraphExec_t> graphExec(args->nGpus);
	testColl *coll = &allReduceTest;
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaStreamBeginCapture(args->streams[i], cudaStreamCaptureModeThreadLocal));
	for (int iter = 0; iter < iters; iter++)
		TESTCHECK(startColl(args, coll, iter));  // expect: warning CG410
	if (poll)
		TESTCHECK(pollStreams(args->nGpus, args->streams));  // expect: warning CG410
	TESTCHECK(reportMemory(args));  // expect: note CG411, warning CG410
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaStreamEndCapture(args->streams[i], graphs.data() + i));
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaGraphInstantiate(graphExec.data() + i, graphs[i], NULL, NULL, 0));
	// clean edit: launches and syncs after every capture ended
	for (int l = 0; l < graphLaunches; l++)
		for (int i = 0; i < args->nGpus; i++)
			CUDACHECK(cudaGraphLaunch(graphExec[i], args->streams[i]));
	for (int i = 0; i < args->nGpus; i++)
		CUDACHECK(cudaStreamSynchronize(args->streams[i]));
	for (int i = 0; i < args->nGpus; i++) {
		CUDACHECK(cudaGraphExecDestroy(graphExec[i]));
		CUDACHECK(cudaGraphDestroy(graphs[i]));
	}
	return testSuccess;
}

testResult_t BenchChecked(struct threadArgs *args, cudaGraph_t *graph)
{
	CUDACHECK(cudaStreamBeginCapture(args->streams[0], cudaStreamCaptureModeThreadLocal));
	testResult_t r = startColl(args, &checkedTest, 0);
	CUDACHECK(cudaStreamEndCapture(args->streams[0], graph));
	return r;
}

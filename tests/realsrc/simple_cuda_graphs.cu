// After cuda-samples Samples/3_CUDA_Features/simpleCudaGraphs: a reduction captured on a
// stream forked into two, error checks through a checkCudaErrors-style macro, main ending in
// exit(EXIT_SUCCESS). Hazards written in (expect:) and clean edits beside them.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T> void check(T result, char const *const func, const char *const file, int const line)
{
	if (result) {
		fprintf(stderr, "CUDA error at %s:%d code=%d \"%s\"\n", file, line, static_cast<unsigned int>(result), func);
		exit(EXIT_FAILURE);
	}
}

#define THREADS_PER_BLOCK 512
#define GRAPH_LAUNCH_ITERATIONS 3

__global__ void reduce(float *inputVec, double *outputVec, size_t inputSize, size_t outputSize)
{
	size_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < outputSize)
		outputVec[i] = inputVec[i % inputSize];
}

__global__ void reduceFinal(double *inputVec, double *result, size_t inputSize) { *result = inputVec[0]; }

void CUDART_CB myHostNodeCallback(void *data)
{
	double *result = (double *)data;
	printf("Final reduced sum = %lf\n", *result);
	*result = 0.0;
}

void cudaGraphsUsingStreamCapture(float *inputVec_d, float *inputVec_h, double *outputVec_d, double *result_d,
				  size_t inputSize, size_t numOfBlocks)
{
	cudaStream_t stream1, stream2, stream3, streamForGraph;
	cudaEvent_t forkStreamEvent, memsetEvent1, memsetEvent2;
	cudaGraph_t graph;
	double result_h = 0.0;

	checkCudaErrors(cudaStreamCreate(&stream1));
	checkCudaErrors(cudaStreamCreate(&stream2));
	checkCudaErrors(cudaStreamCreate(&stream3));
	checkCudaErrors(cudaStreamCreate(&streamForGraph));
	checkCudaErrors(cudaEventCreate(&forkStreamEvent));
	checkCudaErrors(cudaEventCreate(&memsetEvent1));
	checkCudaErrors(cudaEventCreate(&memsetEvent2));

	checkCudaErrors(cudaStreamBeginCapture(stream1, cudaStreamCaptureModeGlobal));
	cudaStreamCaptureStatus captureStatus;
	checkCudaErrors(cudaStreamIsCapturing(stream1, &captureStatus));
	if (captureStatus != cudaStreamCaptureStatusActive) {
		printf("stream1 is not capturing\n");
		exit(EXIT_FAILURE);
	}
	checkCudaErrors(cudaEventRecord(forkStreamEvent, stream1));
	checkCudaErrors(cudaStreamWaitEvent(stream2, forkStreamEvent, 0));
	checkCudaErrors(cudaStreamWaitEvent(stream3, forkStreamEvent, 0));
	checkCudaErrors(cudaMemcpyAsync(inputVec_d, inputVec_h, sizeof(float) * inputSize, cudaMemcpyDefault, stream1));
	checkCudaErrors(cudaMemsetAsync(outputVec_d, 0, sizeof(double) * numOfBlocks, stream2));
	checkCudaErrors(cudaEventRecord(memsetEvent1, stream2));
	checkCudaErrors(cudaMemsetAsync(result_d, 0, sizeof(double), stream3));
	checkCudaErrors(cudaEventRecord(memsetEvent2, stream3));
	checkCudaErrors(cudaStreamWaitEvent(stream1, memsetEvent1, 0));
	reduce<<<numOfBlocks, THREADS_PER_BLOCK, 0, stream1>>>(inputVec_d, outputVec_d, inputSize, numOfBlocks);
	checkCudaErrors(cudaStreamWaitEvent(stream1, memsetEvent2, 0));
	reduceFinal<<<1, THREADS_PER_BLOCK, 0, stream1>>>(outputVec_d, result_d, numOfBlocks);
	checkCudaErrors(cudaMemcpyAsync(&result_h, result_d, sizeof(double), cudaMemcpyDefault, stream1));
	printf("captured the reduction of %zu blocks\n", numOfBlocks);  // expect: warning CG408
	checkCudaErrors(cudaLaunchHostFunc(stream1, myHostNodeCallback, &result_h));
	checkCudaErrors(cudaStreamEndCapture(stream1, &graph));

	// clean edit: syncs on the other streams once the capture has ended
	checkCudaErrors(cudaStreamSynchronize(stream2));
	checkCudaErrors(cudaStreamSynchronize(stream3));

	cudaGraphExec_t graphExec;
	checkCudaErrors(cudaGraphInstantiate(&graphExec, graph, NULL, NULL, 0));
	for (int i = 0; i < GRAPH_LAUNCH_ITERATIONS; i++)
		checkCudaErrors(cudaGraphLaunch(graphExec, streamForGraph));
	checkCudaErrors(cudaStreamSynchronize(streamForGraph));
	checkCudaErrors(cudaGraphExecDestroy(graphExec));
	checkCudaErrors(cudaGraphDestroy(graph));
	checkCudaErrors(cudaStreamDestroy(stream1));
	checkCudaErrors(cudaStreamDestroy(stream2));
	checkCudaErrors(cudaStreamDestroy(stream3));
	checkCudaErrors(cudaStreamDestroy(streamForGraph));
}

int main(int argc, char **argv)
{
	size_t size = 1 << 24;
	size_t maxBlocks = 512;
	float *inputVec_d = NULL, *inputVec_h = NULL;
	double *outputVec_d = NULL, *result_d;
	cudaStream_t s;
	cudaGraph_t g;

	checkCudaErrors(cudaMallocHost(&inputVec_h, sizeof(float) * size));
	checkCudaErrors(cudaMalloc(&inputVec_d, sizeof(float) * size));
	checkCudaErrors(cudaMalloc(&outputVec_d, sizeof(double) * maxBlocks));
	checkCudaErrors(cudaMalloc(&result_d, sizeof(double)));
	checkCudaErrors(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

	cudaGraphsUsingStreamCapture(inputVec_d, inputVec_h, outputVec_d, result_d, size, maxBlocks);

	// a second capture in main: main ends with exit(EXIT_SUCCESS), which is not an error path
	checkCudaErrors(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	reduce<<<maxBlocks, THREADS_PER_BLOCK, 0, s>>>(inputVec_d, outputVec_d, size, maxBlocks);
	double peek = 0.0;
	checkCudaErrors(cudaMemcpy(&peek, outputVec_d, sizeof(double), cudaMemcpyDeviceToHost));  // expect: error CG303
	printf("first partial sum %f\n", peek);  // expect: warning CG408
	checkCudaErrors(cudaStreamEndCapture(s, &g));
	checkCudaErrors(cudaGraphDestroy(g));

	checkCudaErrors(cudaFree(inputVec_d));
	checkCudaErrors(cudaFree(outputVec_d));
	checkCudaErrors(cudaFree(result_d));
	checkCudaErrors(cudaFreeHost(inputVec_h));
	exit(EXIT_SUCCESS);
}

// After cuda-samples cudaGraphsPerfScaling (createParallelChain): a graph of 'width' parallel
// chains captured by forking stream[1..width) off stream[0] with one event, each chain's
// kernels launched through a stream index variable, and the chains joined back in a loop.
// Variants as real edits make them: a join loop whose bound is one short, one that starts
// past the first side stream, a fork done in a helper given the index, the end written on
// another element. Hazards marked (expect:), the sample's own shape and clean edits unmarked;
// like the sample, no capture checks cudaStreamEndCapture's result (CG405, expected).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void empty() {}

std::vector<cudaStream_t> stream;
cudaEvent_t event[1];

// the sample's own capture: fork, chains, join, all with the same bounds
cudaGraph_t createParallelChain(int length, int width, bool singleEntry = false)
{
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal);
	int streamIdx = 0;
	if (singleEntry)
		empty<<<1, 1, 0, stream[streamIdx]>>>();
	cudaEventRecord(event[0], stream[0]);
	for (int i = 1; i < width; i++)
		cudaStreamWaitEvent(stream[i], event[0]);
	for (int i = 0; i < width; i++) {
		streamIdx = i;
		for (int j = 0; j < length; j++)
			empty<<<1, 1, 0, stream[streamIdx]>>>();
	}
	for (int i = 1; i < width; i++) {
		cudaEventRecord(event[0], stream[i]);
		cudaStreamWaitEvent(stream[0], event[0]);
	}
	cudaStreamEndCapture(stream[0], &graph);  // expect: warning CG405
	return graph;
}

// the last chain is left out of the join: its stream is still forked at the end
cudaGraph_t createParallelChainShortJoin(int length, int width)
{
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal);
	cudaEventRecord(event[0], stream[0]);
	for (int i = 1; i < width; i++)
		cudaStreamWaitEvent(stream[i], event[0]);
	for (int i = 0; i < width; i++)
		for (int j = 0; j < length; j++)
			empty<<<1, 1, 0, stream[i]>>>();
	for (int i = 1; i < width - 1; i++) {
		cudaEventRecord(event[0], stream[i]);
		cudaStreamWaitEvent(stream[0], event[0]);
	}
	cudaStreamEndCapture(stream[0], &graph);  // expect: error CG401, warning CG405
	return graph;
}

// the join written from the chain index 2, as if stream[1] were the origin
cudaGraph_t createParallelChainFromTwo(int length, int width)
{
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal);
	cudaEventRecord(event[0], stream[0]);
	for (int i = 1; i < width; i++)
		cudaStreamWaitEvent(stream[i], event[0]);
	for (int i = 1; i < width; i++)
		empty<<<1, 1, 0, stream[i]>>>();
	for (int i = 2; i < width; i++) {
		cudaEventRecord(event[0], stream[i]);
		cudaStreamWaitEvent(stream[0], event[0]);
	}
	cudaStreamEndCapture(stream[0], &graph);  // expect: error CG401, warning CG405
	return graph;
}

static void forkChain(int idx, int length)
{
	cudaStreamWaitEvent(stream[idx], event[0]);
	for (int j = 0; j < length; j++)
		empty<<<1, 1, 0, stream[idx]>>>();
}

static void joinChain(int idx)
{
	cudaEventRecord(event[0], stream[idx]);
	cudaStreamWaitEvent(stream[0], event[0]);
}

// clean edit: the chains forked and joined in helpers given the index, bounds agreeing
cudaGraph_t createParallelChainHelpers(int length, int width)
{
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal);
	cudaEventRecord(event[0], stream[0]);
	for (int i = 1; i < width; i++)
		forkChain(i, length);
	for (int i = 1; i <= width - 1; i++)
		joinChain(i);
	cudaStreamEndCapture(stream[0], &graph);  // expect: warning CG405
	return graph;
}

// helpers again, the join loop's bound one short
cudaGraph_t createParallelChainHelpersShort(int length, int width)
{
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal);
	cudaEventRecord(event[0], stream[0]);
	for (int i = 1; i < width; i++)
		forkChain(i, length);
	for (int i = 1; i < width - 1; i++)
		joinChain(i);
	cudaStreamEndCapture(stream[0], &graph);  // expect: error CG401, warning CG405
	return graph;
}

// clean edit: a fork loop that starts at the origin itself (stream[0] waiting on its own
// event adds nothing to join)
cudaGraph_t createParallelChainFromOrigin(int length, int width)
{
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal);
	cudaEventRecord(event[0], stream[0]);
	for (int i = 0; i < width; i++) {
		cudaStreamWaitEvent(stream[i], event[0]);
		empty<<<1, 1, 0, stream[i]>>>();
	}
	for (int i = 1; i < width; i++) {
		cudaEventRecord(event[0], stream[i]);
		cudaStreamWaitEvent(stream[0], event[0]);
	}
	cudaStreamEndCapture(stream[0], &graph);  // expect: warning CG405
	return graph;
}

// a two-chain graph ended on the second chain's stream
cudaGraph_t createTwoChains(int length)
{
	cudaGraph_t graph;
	cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal);
	cudaEventRecord(event[0], stream[0]);
	cudaStreamWaitEvent(stream[1], event[0]);
	for (int j = 0; j < length; j++) {
		empty<<<1, 1, 0, stream[0]>>>();
		empty<<<1, 1, 0, stream[1]>>>();
	}
	cudaEventRecord(event[0], stream[1]);
	cudaStreamWaitEvent(stream[0], event[0]);
	cudaStreamEndCapture(stream[1], &graph);  // expect: error CG402, warning CG405
	return graph;
}

void runDemo(cudaGraph_t graph)
{
	cudaGraphExec_t graphExec;
	cudaGraphInstantiateWithFlags(&graphExec, graph, 0);  // expect: warning CG405
	cudaGraphLaunch(graphExec, stream[0]);
	cudaStreamSynchronize(stream[0]);       // clean edit: after the capture
	cudaGraphExecDestroy(graphExec);
	cudaGraphDestroy(graph);
}

int main(int argc, char **argv)
{
	int length = argc > 1 ? atoi(argv[1]) : 20, width = argc > 2 ? atoi(argv[2]) : 4;
	int numStreams = width < 2 ? 2 : width;
	stream.resize(numStreams);
	for (int i = 0; i < numStreams; i++)
		cudaStreamCreate(&stream[i]);
	cudaEventCreate(&event[0], cudaEventDisableTiming);
	runDemo(createParallelChain(length, width));
	runDemo(createParallelChainShortJoin(length, width));
	runDemo(createParallelChainFromTwo(length, width));
	runDemo(createParallelChainHelpers(length, width));
	runDemo(createParallelChainHelpersShort(length, width));
	runDemo(createParallelChainFromOrigin(length, width));
	runDemo(createTwoChains(length));
	printf("done\n");
	return 0;
}

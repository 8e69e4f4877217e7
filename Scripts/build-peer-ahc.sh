#!/usr/bin/env bash
# Builds the AsyncHTTPClient peer benchmark (Peers/AsyncHTTPClient) in release from local git copies; see
# Scripts/build-peer.sh. Prints the path of the AHCBenchmarks executable on its last line.
exec bash "$(dirname "$0")/build-peer.sh" AsyncHTTPClient

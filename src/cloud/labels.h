// Label keys and extended resources that only the cloud catalogs define. The well-known
// Kubernetes / Karpenter / Karpenter-AWS label keys live in scheduling/well_known_labels.h.
#pragma once

namespace nodesmith::cloud {

// Extended resources Karpenter-AWS reports beyond nvidia.com/gpu, amd.com/gpu,
// aws.amazon.com/neuron and vpc.amazonaws.com/efa (declared in api/resource_list.h).
inline constexpr const char* kResourceNeuronCore = "aws.amazon.com/neuroncore";
inline constexpr const char* kResourceHabanaGaudi = "habana.ai/gaudi";
inline constexpr const char* kResourcePodEni = "vpc.amazonaws.com/pod-eni";
inline constexpr const char* kResourcePrivateIpv4Address = "vpc.amazonaws.com/PrivateIPv4Address";

// Karpenter's KWOK provider (kwok/apis/v1alpha1/labels.go, group karpenter.kwok.sh).
inline constexpr const char* kLabelKwokInstanceSize = "karpenter.kwok.sh/instance-size";
inline constexpr const char* kLabelKwokInstanceFamily = "karpenter.kwok.sh/instance-family";
inline constexpr const char* kLabelKwokInstanceCpu = "karpenter.kwok.sh/instance-cpu";
inline constexpr const char* kLabelKwokInstanceMemory = "karpenter.kwok.sh/instance-memory";

}  // namespace nodesmith::cloud

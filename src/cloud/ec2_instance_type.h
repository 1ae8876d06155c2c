// Turns one EC2 instance type (hardware facts) into a cloud::InstanceType the way Karpenter's AWS
// provider does: the well-known labels it sets (as requirements), the extended resources it
// reports, and the capacity/overhead from ec2_overhead.h.
#pragma once

#include <string_view>
#include <vector>

#include "api/resource_list.h"
#include "cloud/aws_instance_data.h"
#include "cloud/ec2_overhead.h"
#include "cloud/instance_type.h"
#include "core/status.h"
#include "scheduling/requirements.h"

namespace nodesmith::cloud {

// The instance-type-level requirements (everything but instance-type, zone and capacity type,
// which NewInstanceType adds from the offerings): kubernetes.io/arch, kubernetes.io/os,
// topology.kubernetes.io/region, and each karpenter.k8s.aws/instance-* label, `In [value]` where
// the type has one and `DoesNotExist` where it has none or the value is not known here.
scheduling::Requirements Ec2Requirements(const Ec2InstanceSpec& spec, std::string_view region,
                                         AmiFamily ami_family);

// The extended resources the type offers (non-zero ones only): nvidia.com/gpu, amd.com/gpu,
// habana.ai/gaudi, aws.amazon.com/neuron, aws.amazon.com/neuroncore, vpc.amazonaws.com/efa,
// vpc.amazonaws.com/pod-eni, and vpc.amazonaws.com/PrivateIPv4Address on Windows.
api::ResourceList Ec2ExtendedResources(const Ec2InstanceSpec& spec, AmiFamily ami_family);

// The hardware facts ec2_overhead.h needs.
Ec2Hardware HardwareOf(const Ec2InstanceSpec& spec);

// The whole instance type. Fails only when `settings` holds an unparseable quantity.
core::Result<InstanceTypePtr> NewEc2InstanceType(const Ec2InstanceSpec& spec,
                                                 std::string_view region,
                                                 const Ec2NodeSettings& settings,
                                                 std::vector<Offering> offerings);

}  // namespace nodesmith::cloud

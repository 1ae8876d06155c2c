"""moto in server mode, with a control endpoint for what moto cannot be asked over the AWS APIs.

    python moto_server.py PORT CONTROL_PORT

PORT serves the AWS APIs exactly as `moto_server` does (same app, same backends). CONTROL_PORT
serves, on loopback, what the AWS provider's tests need and moto lacks (shared/design/aws.md):

    POST /ssm-parameter  {"region": R, "name": N, "value": V}
        puts a parameter moto refuses through PutParameter: /aws/service/... (the EKS,
        Bottlerocket and Windows AMI aliases). Gone after /moto-api/reset, like any state.
    POST /fault  {"action": A, "code": C, "message": M, "status": S, "delaySeconds": D,
                  "dryRun": true|false, "times": N}
        makes the next N calls of action A (every call without "times"; only those with DryRun
        set, or only those without, when "dryRun" is given) fail with AWS error C and message M,
        as EC2 answers when it refuses a call: UnauthorizedOperation for a role that may not,
        RequestLimitExceeded. The answer's HTTP status is S when given (EC2's own 5xx:
        InternalError with 500, Unavailable with 503), otherwise the one moto gives C (400 for
        a code it does not know). Cleared by /moto-api/reset and by /fault/clear.
        With "delaySeconds" D, the answer comes D seconds late: the call is carried out (or
        refused) at once and its answer held, as when EC2 acted but its answer is lost to a
        client that gave up waiting. Without "code", a fault is only that delay (the call
        succeeds late).
        With "action": "CreateFleet" and "instanceType": T, the fault is a capacity error as an
        instant fleet reports it: the call succeeds, launches nothing, and lists error C for
        each of the request's overrides of type T (with their zone and subnet); only calls whose
        overrides name T count. T "*" is every type: no offering of any call has capacity.
        With "userAgent": U, only calls whose User-Agent header contains U count (the
        program under test's calls, not the test's own reads of moto).
    POST /fault/clear  {}
        removes every fault, whether or not its "times" ran out; moto's state (instances,
        templates, ...) is kept, unlike /moto-api/reset.

It also corrects one shortfall of moto's EC2 Fleet: an instant fleet's instances take the
security groups of their launch template (LaunchTemplateData SecurityGroupIds, or the first
network interface's Groups), as EC2's do, instead of the VPC's default group (moto reads only a
GroupSet key that launch templates do not have). Security-group drift is judged from them.

Runs until killed. moto's own state and reset stay moto's; this process only adds to them.
"""
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.utils import utcnow
from moto.moto_server.threaded_moto_server import ThreadedMotoServer


def put_ssm_parameter(body):
    from moto.ssm.models import Parameter, ssm_backends

    backend = ssm_backends[DEFAULT_ACCOUNT_ID][body.get("region", "us-west-2")]
    versions = backend._parameters[body["name"]]
    versions.append(
        Parameter(
            account_id=DEFAULT_ACCOUNT_ID,
            name=body["name"],
            value=body["value"],
            parameter_type="String",
            description=None,
            allowed_pattern=None,
            keyid=None,
            last_modified_date=utcnow(),
            version=len(versions) + 1,
            data_type="text",
        )
    )


FAULTS = []  # what /fault asked for, in order; the first that matches a call answers it
FAULTS_LOCK = threading.Lock()


def put_fault(body):
    keys = ("action", "code", "message") if "code" in body or "delaySeconds" not in body else ("action",)
    for key in keys:
        if not isinstance(body.get(key), str) or not body[key]:
            raise ValueError("a fault needs a non-empty string '%s'" % key)
    if "status" in body and (not isinstance(body["status"], int) or not 400 <= body["status"] <= 599):
        raise ValueError("a fault's 'status' is an HTTP error status, 400 to 599")
    if "status" in body and "code" not in body:
        raise ValueError("a fault's 'status' goes with a 'code'")
    if "delaySeconds" in body and (not isinstance(body["delaySeconds"], (int, float))
                                   or body["delaySeconds"] < 0):
        raise ValueError("a fault's 'delaySeconds' is a number of seconds, 0 or more")
    if "instanceType" in body and "code" not in body:
        raise ValueError("a capacity fault ('instanceType') needs a 'code'")
    with FAULTS_LOCK:
        FAULTS.append(dict(body))


def clear_faults(body):
    with FAULTS_LOCK:
        FAULTS.clear()


def names_type(fault, instance_type):
    return fault["instanceType"] in ("*", instance_type)


def take_fault(action, dry_run, instance_types=(), user_agent=""):
    """The fault that answers this call, if any; counts it against its "times"."""
    with FAULTS_LOCK:
        for fault in FAULTS:
            if fault["action"] != action:
                continue
            if "instanceType" in fault and not any(names_type(fault, t) for t in instance_types):
                continue
            if "dryRun" in fault and bool(fault["dryRun"]) != dry_run:
                continue
            if "userAgent" in fault and fault["userAgent"] not in user_agent:
                continue
            if "times" in fault:
                if fault["times"] <= 0:
                    continue
                fault["times"] -= 1
            return fault
    return None


def fleet_capacity_errors(configs, fault, capacity):
    lifecycle = "spot" if capacity.get("DefaultTargetCapacityType") == "spot" else "on-demand"
    errors = []
    for config in configs:
        spec = config.get("LaunchTemplateSpecification", {})
        for override in config.get("Overrides") or []:
            if not names_type(fault, override.get("InstanceType")):
                continue
            errors.append({
                "LaunchTemplateAndOverrides": {
                    "LaunchTemplateSpecification": {k: spec[k] for k in ("LaunchTemplateName", "Version") if k in spec},
                    "Overrides": {k: override[k] for k in ("InstanceType", "SubnetId", "AvailabilityZone") if k in override},
                },
                "Lifecycle": lifecycle,
                "ErrorCode": fault["code"],
                "ErrorMessage": fault["message"],
            })
    return {"FleetId": "fleet-%s" % uuid.uuid4(), "Errors": errors, "Instances": []}


def inject_faults():
    """Answers the calls /fault names with its error, through moto's own error serialisation."""
    from moto.core.exceptions import ServiceException
    from moto.core.responses import ActionResult, BaseResponse
    from moto.core.utils import camelcase_to_underscores
    from moto.moto_api._internal.models import MotoAPIBackend

    original = BaseResponse.call_action

    def call_action(self):
        action = self._get_action()
        fault = None
        if action:
            dry_run = str(self._get_param("DryRun", False)).lower() == "true"
            configs = self._get_param("LaunchTemplateConfigs", []) if action == "CreateFleet" else []
            types = {o.get("InstanceType") for c in configs for o in (c.get("Overrides") or [])}
            fault = take_fault(action, dry_run, types, self.headers.get("User-Agent") or "")
            if fault is not None and "instanceType" in fault:
                # In-band, as EC2's instant fleets report capacity: nothing launched, one error
                # per override of the type.
                result = fleet_capacity_errors(configs, fault, self._get_param("TargetCapacitySpecification", {}))
                setattr(self, "create_fleet", lambda *args, **kwargs: ActionResult(result))
            elif fault is not None and "code" in fault:
                # moto serialises an error by the service its class's module names.
                error = type("InjectedFault", (ServiceException,), {"__module__": type(self).__module__})

                def refuse(*args, **kwargs):
                    raise error(fault["code"], fault["message"])
                # This response object serves this one call: its method for the action refuses.
                setattr(self, camelcase_to_underscores(action), refuse)
        answer = original(self)
        if fault is not None:
            if "status" in fault and "instanceType" not in fault:
                answer = (fault["status"],) + tuple(answer[1:])
            time.sleep(fault.get("delaySeconds", 0))
        return answer

    BaseResponse.call_action = call_action

    original_reset = MotoAPIBackend.reset

    def reset(self):
        with FAULTS_LOCK:
            FAULTS.clear()
        return original_reset(self)

    MotoAPIBackend.reset = reset


ROUTES = {"/ssm-parameter": put_ssm_parameter, "/fault": put_fault, "/fault/clear": clear_faults}


class Control(BaseHTTPRequestHandler):
    def do_POST(self):
        route = ROUTES.get(self.path)
        if route is None:
            self.send_error(404, "no such control route: " + self.path)
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            route(json.loads(self.rfile.read(length) or b"{}"))
        except Exception as e:  # the test reads the message
            body = str(e).encode()
            self.send_response(400)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, fmt, *args):
        sys.stderr.write("control: " + (fmt % args) + "\n")


def give_fleets_their_templates_security_groups():
    from moto.ec2.models import launch_templates

    original = launch_templates.LaunchTemplateVersion.__init__

    def init(self, template, number, data, description):
        original(self, template, number, data, description)
        if isinstance(self.data, dict) and not self.data.get("GroupSet"):
            groups = self.data.get("SecurityGroupIds") or []
            if not groups:
                interfaces = self.data.get("NetworkInterfaces") or [{}]
                groups = interfaces[0].get("Groups") or []
            if groups:
                self.data["GroupSet"] = list(groups)

    launch_templates.LaunchTemplateVersion.__init__ = init


def main():
    give_fleets_their_templates_security_groups()
    inject_faults()
    port, control_port = int(sys.argv[1]), int(sys.argv[2])
    ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=True).start()
    ThreadingHTTPServer(("127.0.0.1", control_port), Control).serve_forever()


if __name__ == "__main__":
    main()

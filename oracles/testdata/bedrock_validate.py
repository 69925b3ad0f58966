"""Validate Bedrock Converse requests with botocore's own ParamValidator.

Usage: python3 bedrock_validate.py <service-2.json>  < requests.json

stdin holds a JSON array of Converse request parameters ({"modelId", "messages"}).
The service model is loaded from the given file (shared/specs), not from the
installed botocore, so the check follows the pinned model. Image bytes arrive
as base64 text, the JSON wire form of a blob; ParamValidator accepts str for a
blob. Prints one line per request ("ok" or the botocore report) and exits 1 when
any request is invalid, 2 when botocore is missing.
"""
import json
import sys

try:
    from botocore.model import ServiceModel
    from botocore.validate import ParamValidator
except ImportError:
    print("botocore is not installed")
    sys.exit(2)

with open(sys.argv[1]) as f:
    model = ServiceModel(json.load(f), service_name="bedrock-runtime")
shape = model.operation_model("Converse").input_shape
failed = False
for params in json.load(sys.stdin):
    report = ParamValidator().validate(params, shape)
    if report.has_errors():
        failed = True
        print(report.generate_report().replace("\n", " | "))
    else:
        print("ok")
sys.exit(1 if failed else 0)

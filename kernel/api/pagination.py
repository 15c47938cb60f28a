from typing import Any

from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class Pages(PageNumberPagination):
    """``?page=n`` (from 1) and ``?page_size=`` from 1 to 100; 20 by default.

    A ``page_size`` that is not an integer in that range is refused
    (``invalid``), as the schema says, not replaced by the default or the cap.
    """

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        field = serializers.IntegerField(min_value=1, max_value=self.max_page_size)
        try:
            return int(field.run_validation(raw))
        except serializers.ValidationError as err:
            raise serializers.ValidationError({self.page_size_query_param: err.detail}) from None

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] |= {"minimum": 1, "maximum": self.max_page_size}
            elif parameter["name"] == self.page_query_param:
                parameter["schema"] |= {"minimum": 1}
        return parameters

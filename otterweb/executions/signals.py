"""What other apps hear of executions."""

from django.dispatch import Signal

# sent by Execution.finish, in its transaction, with the finished execution as ``execution``:
# however it ended (run to its end, cancelled, closed after its worker was lost)
execution_finished = Signal()

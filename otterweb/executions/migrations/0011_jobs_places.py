"""Fill in where each existing job is, for privileges: the environments of the servers it
targeted (by the names it keeps) and the raft of its script."""

from django.db import migrations


def fill(apps, schema_editor):
    Job = apps.get_model("executions", "Job")
    Server = apps.get_model("inventory", "Server")
    environments = {}
    for server in Server.objects.prefetch_related("environments"):
        environments[server.name] = [e.pk for e in server.environments.all()]
    for job in Job.objects.select_related("script_version__item", "template__raft_item"):
        found = {pk for name in job.targets or [] for pk in environments.get(name, [])}
        if found:
            job.environments.set(found)
        if job.script_version_id:
            job.raft_id = job.script_version.item.raft_id
        elif job.template_id:
            job.raft_id = job.template.raft_item.raft_id
        if job.raft_id:
            job.save(update_fields=["raft"])


class Migration(migrations.Migration):
    dependencies = [("executions", "0010_job_environments_job_raft")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]

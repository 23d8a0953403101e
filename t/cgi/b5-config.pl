# config for b5-require-once.cgi (no package line)
$loaded++;
$config_time = time;
@admins = ('root');
1;

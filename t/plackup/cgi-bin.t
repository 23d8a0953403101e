# plackup -s Kamado --cgi-bin: the CGI directories are served beside the
# app plackup loaded, repeated --cgi-bin options each mounted (plackup
# passes a repeated option as repeated pairs), --cgi-mode passed along.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $dir = tempdir(CLEANUP => 1);
for my $name (qw(a b)) {
    mkdir "$dir/$name" or die;
    open my $fh, '>', "$dir/$name/hello.cgi" or die;
    print $fh "#!$^X\nprint \"Content-Type: text/plain\\r\\n\\r\\n$name \$ENV{SCRIPT_NAME}\";\n";
    close $fh;
    chmod 0755, "$dir/$name/hello.cgi" or die;
}
my $port = free_port();
my $server = start_plackup(port => $port,
    args => ['--port', $port, '-E', 'deployment', '--cgi-mode', 'registry',
             '--cgi-bin', "/one=$dir/a", '--cgi-bin', "/two=$dir/b"],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["app $_[0]{PATH_INFO}"]] }');
for my $case (['/one/hello.cgi', 'a /one/hello.cgi'], ['/two/hello.cgi', 'b /two/hello.cgi'], ['/x', 'app /x']) {
    my ($path, $want) = @$case;
    my $res = read_response($server->send_get($path));
    is $res && $res->{body}, $want, "GET $path";
}
is $server->stop, 0, 'TERM stops plackup cleanly';
done_testing;

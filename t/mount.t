# Kamado::Runner::mount, what kamado --cgi-bin puts before the CGI
# directories and the app: Plack::App::URLMap's matching (the longest
# prefix that is the path or is followed in it by a slash), SCRIPT_NAME
# and PATH_INFO for the app, and both put back after it answered, for a
# delayed response when it responds.
use strict;
use warnings;
use Test::More;
use Kamado::Runner;

my @seen;
sub app { my ($name, $delayed) = @_; sub {
    my ($env) = @_;
    push @seen, "$name $env->{SCRIPT_NAME}|$env->{PATH_INFO}";
    return [200, [], [$name]] unless $delayed;
    return sub { my ($respond) = @_; push @seen, "responding $env->{SCRIPT_NAME}|$env->{PATH_INFO}"; $respond->([200, [], [$name]]) };
} }
my $mount = Kamado::Runner::mount('/cgi-bin' => app('cgi'), '/cgi-bin/deep' => app('deep', 1), '' => app('app'),
    '' => app('second'));
for (['/cgi-bin/a.cgi/x' => 'cgi /cgi-bin|/a.cgi/x'], ['/cgi-bin' => 'cgi /cgi-bin|'], ['/cgi-bin/' => 'cgi /cgi-bin|/'],
     ['/cgi-binx/a' => 'app |/cgi-binx/a'], ['/' => 'app |/'], ['' => 'app |'], ['/cgi-bin/deeper' => 'cgi /cgi-bin|/deeper']) {
    my ($path, $want) = @$_;
    @seen = ();
    my $env = { SCRIPT_NAME => '', PATH_INFO => $path };
    my $res = $mount->($env);
    is_deeply [@seen], [$want], "$path: $want";
    is "$env->{SCRIPT_NAME}|$env->{PATH_INFO}", "|$path", "$path: put back";
}
{
    @seen = ();
    my $env = { SCRIPT_NAME => '/site', PATH_INFO => '/cgi-bin/deep/s.cgi' };
    my $res = $mount->($env);
    is ref $res, 'CODE', 'a delayed response';
    is "$env->{SCRIPT_NAME}|$env->{PATH_INFO}", '/site/cgi-bin/deep|/s.cgi', 'until it responds, the app\'s view';
    my $got;
    $res->(sub { $got = shift; undef });
    is_deeply [@seen], ['deep /site/cgi-bin/deep|/s.cgi', 'responding /site/cgi-bin/deep|/s.cgi'], 'the app saw its own';
    is $got->[2][0], 'deep', 'its response';
    is "$env->{SCRIPT_NAME}|$env->{PATH_INFO}", '/site|/cgi-bin/deep/s.cgi', 'then put back';
}
is Kamado::Runner::mount('/a' => app('a'))->({ SCRIPT_NAME => '', PATH_INFO => '/b' })->[0], 404, 'no prefix: 404';
is Kamado::Runner::mount('' => app('a'))->({ SCRIPT_NAME => '', PATH_INFO => '*' })->[0], 404, "'*' (OPTIONS *): 404, as URLMap";
# the path normalised before it is matched, as Apache does
for (['//cgi-bin/a.cgi' => 'cgi /cgi-bin|/a.cgi'], ['/./cgi-bin/a.cgi' => 'cgi /cgi-bin|/a.cgi'],
     ['/x/../cgi-bin/a.cgi/' => 'cgi /cgi-bin|/a.cgi/'], ['/cgi-bin/../a' => 'app |/a'], ['/cgi-bin/other/.' => 'cgi /cgi-bin|/other/']) {
    my ($path, $want) = @$_;
    @seen = ();
    my $env = { SCRIPT_NAME => '', PATH_INFO => $path };
    $mount->($env);
    is_deeply [@seen], [$want], "$path: $want";
    is "$env->{SCRIPT_NAME}|$env->{PATH_INFO}", "|$path", "$path: put back";
}
is $mount->({ SCRIPT_NAME => '', PATH_INFO => '/a/../..' })->[0], 400, '/a/../..: above the root, 400';
done_testing;
